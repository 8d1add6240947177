"""Automatic design of robot-swarm control software: AutoMoDe probabilistic finite-state
machines (PFSMs) assembled from a flavour's behaviour and condition modules and tuned by
iterated F-race, every candidate evaluated in batched simulations."""

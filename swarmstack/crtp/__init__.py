"""CRTP endpoints of simulated Crazyflies: cflib flies them over UDP (``--serve cflib``)."""

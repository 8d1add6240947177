"""Sensor devices, one module per kind, shared by every robot type that carries them."""

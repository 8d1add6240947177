"""Actuators: commanded wheel speeds → applied speeds, logical LEDs → coloured emitters."""

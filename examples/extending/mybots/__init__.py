"""Robot types and a sensor defined outside swarmstack (docs/extending.md): ``compass`` a new
sensor kind and an E-Puck2 that carries it, ``rover`` a new robot type."""

"""The world: static arena, robot state arrays, placement, colours and random streams."""

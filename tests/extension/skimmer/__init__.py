"""A robot type outside swarmstack, as a user's package or an installed plug-in would hold it:
experiment files name it ``type = "skimmer.robot:SKIMMER"`` (the package next to the file or
on the Python path) or, through the entry point ``skimmer = "skimmer.robot:SKIMMER"`` in the
group ``swarmstack.robot_types``, ``type = "skimmer"``."""

"""Run folders in other formats: MCAP with ROS 2 messages (``swarmstack export``)."""

"""ROS 2 without a ROS installation: rmw_zenoh's wire format over eclipse-zenoh, CDR payloads
through rosbags, and the bridges that carry real robots' topics to and from swarmstack's
readings and commands (``docs/real-robots.md``).

Needs the ``ros2`` extra (``pip install swarmstack[ros2]``).
"""

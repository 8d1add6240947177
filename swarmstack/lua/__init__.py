"""Lua controllers with ARGoS's robot API (``controller = { lua = "ctrl.lua" }``).

``runtime.lua`` is the Lua side: one Lua 5.3 state (lupa) per group, one global environment
per robot, ``robot.*`` tables, ``robot.random``, ``log``/``logerr``, and the per-tick driver
that steps every robot of the group in one call. ``epuck2.lua`` adds the E-Puck2 plug-in's own
API (its LED functions) to the E-Puck2's tables. The controller that the simulation drives,
:class:`swarmstack.controllers.lua.LuaController`, learns from each device's ``ScriptGlobal``
of the robot type how a reading maps onto those tables, so readings travel as raw bytes; the
user's reference is ``docs/lua.md``.
"""

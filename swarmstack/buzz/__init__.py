"""Buzz, the swarm programming language: a tool chain and a fast virtual machine.

One phase per module, each testable alone:

``tokens``/``scanner`` (text -> tokens) -> ``parser`` (tokens -> ``ast``, includes spliced)
-> ``compiler`` (AST -> ``bytecode``, the reference's scoping rules) -> ``codegen`` (bytecode
-> Python functions, Buzz semantics from ``runtime``) -> ``vm`` (loading, running, embedding,
errors) with ``stdlib`` (built-ins) and ``heap`` (the BittyBuzz memory model); ``disasm``
lists bytecode. ``values`` defines how Buzz values look in Python; ``include/`` holds the
standard ``.bzz`` libraries; ``swarm/`` adds neighbours, swarms, stigmergy and messaging.

Start with :class:`swarmstack.buzz.vm.BuzzVM`.
"""

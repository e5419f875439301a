"""DoD mazes: the program verifier of maze edits, the pair generator and the ``maze_solver`` core.

A closed subsystem (see README.md here): the rest of DoD uses only ``verify.verify_maze_edit``
and ``overlay.maze_overlay``. Nothing is imported here, so importing one module stays cheap.
"""

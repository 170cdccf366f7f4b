"""A skill program's command line, read without running it: its ``language``, Python's
``python_argparse`` and ``python_decorators`` (click, typer; both through ``python`` with
``python_source``'s constants), shell and Node ``scripts``, and, only with ``--probe``, its
own ``--help`` run in a sandbox (``probe``).  ``interface`` is the model they fill;
``program`` finds a skill's programs and describes each."""

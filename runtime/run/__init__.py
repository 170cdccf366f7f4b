"""Running a pipeline: the lifecycle (``runner``), one phase's steps in order (``phase``), one
step (``steps``: the stdin/stdout contract; ``process``: the program in its process group;
``llm_step`` with its prompt ``template``), the declared ``inputs``, and SIGINT/SIGTERM
(``interrupts``)."""

"""app-new: start an APP or grow one (an APP, a pipeline, a step, the lifecycle pipelines),
every file rendered from ``templates/new/``."""

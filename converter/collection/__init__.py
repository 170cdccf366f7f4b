"""Skill collections: a folder of several skills converted into one APP, or one APP each."""

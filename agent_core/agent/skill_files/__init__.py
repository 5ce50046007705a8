"""Agent Skills in an agent folder: ``skills/<name>/SKILL.md`` with the skill's own files."""

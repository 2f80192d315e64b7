"""Raw gaze sources: one reader per dataset format, each producing a :class:`Recording`."""

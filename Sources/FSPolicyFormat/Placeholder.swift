import FSPolicy

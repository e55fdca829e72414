package history

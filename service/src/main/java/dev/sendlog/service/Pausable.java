package dev.sendlog.service;

/** A component an operator may pause and resume (admin tasks {@code pause} and {@code resume}), to drain a node. */
record Pausable(Runnable pause, Runnable resume) {}

package dev.sendlog.service.db;

import dev.sendlog.service.config.DatabaseSettings.PoolSizes;

/** The database pools, one per kind of work. */
public enum PoolRole {
    API("api"),
    PIPELINE("pipeline"),
    CALLBACKS("callbacks"),
    WEBHOOKS("webhooks"),
    MAINTENANCE("maintenance");

    private final String key;

    PoolRole(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    public int size(PoolSizes sizes) {
        return switch (this) {
            case API -> sizes.api;
            case PIPELINE -> sizes.pipeline;
            case CALLBACKS -> sizes.callbacks;
            case WEBHOOKS -> sizes.webhooks;
            case MAINTENANCE -> sizes.maintenance;
        };
    }
}

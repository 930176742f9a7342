package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** How work is spread: shards, and the bounds of the components that move messages. */
public class PipelineSettings {
    /**
     * Logical shards; each message belongs to one (hash of its id) and pollers own shards by lease.
     * Fixed for the life of a database: changing it moves messages between shards.
     */
    @Min(1)
    @Max(1024)
    @JsonProperty
    public int shards = 16;
}

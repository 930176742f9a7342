package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;

/** The queue stores. Each job type has its own connection and may have its own Redis. */
public class RedisSettings {
    /** Redis for the send stream. Empty: 127.0.0.1:6379 if reachable, else a local redis-server. */
    @NotNull
    @JsonProperty
    public String sendUri = "";

    /** Redis for the callback stream. Empty: the same server as sends (still its own connection). */
    @NotNull
    @JsonProperty
    public String callbackUri = "";

    /** Prefix of every key sendlog writes, so several pipelines (and tests) can share one Redis. */
    @NotNull
    @JsonProperty
    public String keyPrefix = "sendlog:";

    /**
     * The URIs name a node of a Redis Cluster (any one; the client learns the rest). Every key of a job type
     * carries the job type as its hash tag ({@code {send}}, {@code {callback}}), so each job type stays on one node
     * and its stream commands never cross slots. Applies to both job types; the URIs must then be set.
     */
    @JsonProperty
    public boolean cluster = false;
}

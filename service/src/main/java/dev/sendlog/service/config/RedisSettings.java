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
}

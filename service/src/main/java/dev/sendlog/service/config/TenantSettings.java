package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

/**
 * What a tenant sends as (issue 26): {@code defaultSender}, the sender id of its messages that name none, and
 * {@code senders}, when not empty, the only sender ids its messages may name. Checked at start-up (SenderPolicy).
 */
public class TenantSettings {
    @JsonProperty
    public String defaultSender;

    @NotNull
    @JsonProperty
    public List<String> senders = new ArrayList<>();

    /**
     * Fair shares (issue 29): a tenant with a weight has a lane of its own (shards, a send stream and workers), so its
     * normal messages never wait behind another tenant's backlog, and while it has work waiting it gets at least
     * {@code weight} / (1 + the sum of all tenants' weights) of each gateway's rate (the shared normal lane counts 1).
     * Unset: the tenant shares the normal lane. Once given, the lane stays for the life of the database.
     */
    @jakarta.validation.constraints.Min(1)
    @jakarta.validation.constraints.Max(1000)
    @JsonProperty
    public Integer weight;

    /**
     * Provider calls in flight at most for the tenant's lane, per send-worker process; unset: its weight's share of
     * {@code pipeline.sendWorker.concurrency} (at least 1).
     */
    @jakarta.validation.constraints.Min(1)
    @jakarta.validation.constraints.Max(10_000)
    @JsonProperty
    public Integer concurrency;
}

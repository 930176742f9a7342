package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * Where the one source of truth lives, and how many connections each role may hold. The pools are
 * added up at start-up and compared with the server's max_connections (invariant 14).
 */
public class DatabaseSettings {
    /** JDBC URL. Empty: use 127.0.0.1:5432 if reachable, else start an embedded PostgreSQL. */
    @JsonProperty
    public String url = "";

    @JsonProperty
    public String user = "postgres";

    @JsonProperty
    public String password = "";

    /** Connections per role. Each role is its own pool so one cannot starve another. */
    @Valid
    @NotNull
    @JsonProperty
    public PoolSizes pools = new PoolSizes();

    /** Connections kept free for operators and migrations when checking the sum against max_connections. */
    @Min(0)
    @JsonProperty
    public int reservedConnections = 10;

    /** Ends a session idle inside a transaction: such a transaction would hold every tail reader back. */
    @Min(1000)
    @Max(600_000)
    @JsonProperty
    public int idleInTransactionTimeoutMs = 30_000;

    /** How long a caller waits for a pooled connection before the request fails (503 on the API). */
    @Min(100)
    @JsonProperty
    public int connectionTimeoutMs = 3_000;

    public static class PoolSizes {
        /** Accept writers (group commit) and API reads. */
        @Min(1)
        @JsonProperty
        public int api = 10;

        /** Poller and send workers' appends. */
        @Min(1)
        @JsonProperty
        public int pipeline = 12;

        /** Callback intake and callback workers. */
        @Min(1)
        @JsonProperty
        public int callbacks = 6;

        /** Timers, projector, partitions, compaction, reconciliation, health checks. */
        @Min(1)
        @JsonProperty
        public int maintenance = 4;

        /**
         * Status webhook deliveries: the dispatcher's leases and each attempt's read and outcome. An attempt holds a
         * connection only for those short statements, never across the HTTP call.
         */
        @Min(1)
        @JsonProperty
        public int webhooks = 3;

        public int total() {
            return api + pipeline + callbacks + maintenance + webhooks;
        }
    }
}

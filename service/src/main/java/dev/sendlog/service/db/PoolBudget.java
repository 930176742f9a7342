package dev.sendlog.service.db;

import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.SendlogConfiguration;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Invariant 14, pools sized on paper: before opening anything, the service adds up every pool it will open
 * (database pools per role, Redis connections, worker concurrency) and compares the database total with the
 * server's max_connections less a reserve. A configuration that cannot fit is refused, with the sum shown; one
 * that fits on paper but not beside the sessions connected now is started with a warning.
 */
public final class PoolBudget {
    /** The lines of the budget, for the log and the error. */
    public record Budget(
            List<String> lines, int databaseConnections, int maxConnections, int reserved, int inUseByOthers) {
        /** This process's pools fit in max_connections less the reserve (on paper, whatever else is connected now). */
        public boolean fits() {
            return databaseConnections <= maxConnections - reserved;
        }

        /** The connections other sessions hold right now leave room for this process's pools. */
        public boolean fitsBesideOthers() {
            return databaseConnections <= maxConnections - reserved - inUseByOthers;
        }

        public String describe() {
            return String.join("; ", lines) + " => database total " + databaseConnections + " of max_connections "
                    + maxConnections + " less " + reserved + " reserved (other sessions hold " + inUseByOthers
                    + " now)";
        }
    }

    private PoolBudget() {}

    public static Budget compute(SendlogConfiguration config, DataSource probe) throws SQLException {
        int max;
        int others;
        try (Connection c = probe.getConnection();
                Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SHOW max_connections")) {
                rs.next();
                max = Integer.parseInt(rs.getString(1));
            }
            // Sessions of other sendlog processes of this database are counted too: they are the same budget.
            try (ResultSet rs =
                    st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                            + "AND pid <> pg_backend_pid()")) {
                rs.next();
                others = rs.getInt(1);
            }
        }
        DatabaseSettingsView d = new DatabaseSettingsView(config);
        List<String> lines = new ArrayList<>();
        lines.add("db pools api " + d.api + " + pipeline " + d.pipeline + " + callbacks " + d.callbacks
                + " + maintenance " + d.maintenance + " + webhooks " + d.webhooks + " + migration/probe 1");
        int redis = 0;
        if (config.components.contains(Components.POLLER) || config.components.contains(Components.SEND_WORKER)) {
            redis += 4 + 3; // and the high lane's stream: publish, read, acknowledge
        }
        if (config.components.contains(Components.API) || config.components.contains(Components.CALLBACK_WORKER)) {
            redis += 4;
        }
        if (config.components.contains(Components.WEBHOOK_WORKER)) {
            redis += 4; // the webhook stream's publish, read, acknowledge, and its health probe
        }
        lines.add("redis connections " + redis);
        lines.add("send workers " + config.pipeline.sendWorker.concurrency + " + high lane "
                + config.pipeline.sendWorker.highConcurrency + " in flight (sharing the pipeline pool through "
                + config.pipeline.appendWriters + " group-commit writers and the high lane's own one)");
        lines.add("callback workers " + config.receipts.concurrency + " in flight (callbacks pool)");
        int listeners = 0;
        if (config.components.contains(Components.SEND_WORKER)) {
            listeners = 1;
            lines.add("suppression listener 1 (LISTEN, outside the pools)");
        }
        if (config.components.contains(Components.POLLER)) {
            listeners += 1;
            lines.add("high work listener 1 (LISTEN, outside the pools)");
        }
        lines.add("webhook deliveries " + config.webhooks.concurrency + " in flight, "
                + config.webhooks.perEndpointConcurrency
                + " per endpoint (webhooks pool, held only for short statements)");
        int total = d.api + d.pipeline + d.callbacks + d.maintenance + d.webhooks + 1 + listeners;
        return new Budget(lines, total, max, config.database.reservedConnections, others);
    }

    /** The pool sizes this process opens (every role's pool is opened whatever the components, so all count). */
    private record DatabaseSettingsView(int api, int pipeline, int callbacks, int maintenance, int webhooks) {
        DatabaseSettingsView(SendlogConfiguration c) {
            this(
                    c.database.pools.api,
                    c.database.pools.pipeline,
                    c.database.pools.callbacks,
                    c.database.pools.maintenance,
                    c.database.pools.webhooks);
        }
    }
}

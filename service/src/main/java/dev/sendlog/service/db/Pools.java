package dev.sendlog.service.db;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sendlog.service.config.DatabaseSettings;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * One HikariCP pool per role, so that one role cannot take another's connections, each with its
 * metrics in Dropwizard's registry. Every connection ends a transaction left idle (it would hold
 * every tail reader back) and names itself after its role in pg_stat_activity.
 */
public final class Pools implements AutoCloseable {
    private final Map<PoolRole, HikariDataSource> pools = new EnumMap<>(PoolRole.class);
    private final Map<PoolRole, DSLContext> contexts = new EnumMap<>(PoolRole.class);

    public Pools(String jdbcUrl, DatabaseSettings settings, MetricRegistry metrics, String instance) {
        for (PoolRole role : PoolRole.values()) {
            HikariConfig config = new HikariConfig();
            config.setPoolName("db-" + role.key());
            config.setJdbcUrl(withDriverOptions(jdbcUrl));
            config.setUsername(settings.user);
            config.setPassword(settings.password);
            config.setMaximumPoolSize(role.size(settings.pools));
            config.setMinimumIdle(Math.min(2, role.size(settings.pools)));
            config.setConnectionTimeout(settings.connectionTimeoutMs);
            config.setMetricRegistry(metrics);
            config.setInitializationFailTimeout(-1);
            config.addDataSourceProperty("ApplicationName", "sendlog-" + instance + "-" + role.key());
            // Explicit, so that ReadCommittedConnections can answer jOOQ's question for the isolation level itself.
            config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            config.setConnectionInitSql(
                    "SET idle_in_transaction_session_timeout = " + settings.idleInTransactionTimeoutMs);
            HikariDataSource ds = new HikariDataSource(config);
            pools.put(role, ds);
            contexts.put(role, DSL.using(new ReadCommittedConnections(ds), SQLDialect.POSTGRES, jooqSettings()));
        }
    }

    private static String withDriverOptions(String url) {
        String separator = url.contains("?") ? "&" : "?";
        return url + separator + "reWriteBatchedInserts=true&tcpKeepAlive=true";
    }

    private static Settings jooqSettings() {
        return new Settings().withExecuteLogging(false).withRenderSchema(false);
    }

    public DataSource dataSource(PoolRole role) {
        return pools.get(role);
    }

    public DSLContext dsl(PoolRole role) {
        return contexts.get(role);
    }

    public HikariDataSource pool(PoolRole role) {
        return pools.get(role);
    }

    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        for (HikariDataSource ds : pools.values()) {
            try {
                ds.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            IllegalStateException e = new IllegalStateException("closing pools failed");
            failures.forEach(e::addSuppressed);
            throw e;
        }
    }
}

package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;

/** The database answers, and no pool has callers waiting for a connection while every connection is busy. */
public final class DatabaseHealthCheck extends HealthCheck {
    private final HikariDataSource probe;
    private final List<HikariDataSource> pools;

    public DatabaseHealthCheck(HikariDataSource probe, List<HikariDataSource> pools) {
        this.probe = probe;
        this.pools = List.copyOf(pools);
    }

    @Override
    protected Result check() throws Exception {
        try (Connection c = probe.getConnection();
                Statement st = c.createStatement()) {
            st.setQueryTimeout(2);
            st.execute("SELECT 1");
        }
        StringBuilder exhausted = new StringBuilder();
        for (HikariDataSource pool : pools) {
            HikariPoolMXBean bean = pool.getHikariPoolMXBean();
            if (bean != null
                    && bean.getThreadsAwaitingConnection() > 0
                    && bean.getIdleConnections() == 0
                    && bean.getActiveConnections() >= pool.getMaximumPoolSize()) {
                exhausted
                        .append(pool.getPoolName())
                        .append(" (")
                        .append(bean.getThreadsAwaitingConnection())
                        .append(" waiting, ")
                        .append(bean.getActiveConnections())
                        .append(" busy) ");
            }
        }
        if (!exhausted.isEmpty()) {
            return Result.unhealthy("pool exhausted: " + exhausted.toString().trim());
        }
        return Result.healthy("reachable");
    }
}

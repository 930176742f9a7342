package dev.sendlog.bench.baseline;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The baselines' connection pool and their schema statements. */
public final class Database {
    private Database() {}

    /** A HikariCP pool of {@code size} connections, all opened up front as sendlog's pools are. */
    public static HikariDataSource pool(String name, String jdbcUrl, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /** Runs each statement in its own autocommit. */
    public static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}

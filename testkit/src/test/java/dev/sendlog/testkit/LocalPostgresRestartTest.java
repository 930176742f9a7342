package dev.sendlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.LocalPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Slow (two embedded starts, about ten seconds): proves the data folder survives a restart. */
class LocalPostgresRestartTest {
    private static final Logger LOG = LoggerFactory.getLogger(LocalPostgresRestartTest.class);

    private Path dataDir;

    @BeforeEach
    void createDataDir() {
        dataDir = Directories.createTemp("local-postgres-restart-");
    }

    @AfterEach
    void deleteDataDir() {
        Directories.deleteRecursively(dataDir);
    }

    @Test
    void aSecondStartOnTheSameFolderFindsTheDataOfTheFirst() throws SQLException {
        long firstStartNanos = System.nanoTime();
        try (LocalPostgres first = LocalPostgres.start(dataDir, 0, Map.of())) {
            LOG.info(
                    "First embedded start (with initdb) took {} ms", (System.nanoTime() - firstStartNanos) / 1_000_000);
            execute(first, "CREATE TABLE kept (note text)", "INSERT INTO kept VALUES ('from the first run')");
        }

        long secondStartNanos = System.nanoTime();
        try (LocalPostgres second = LocalPostgres.start(dataDir, 0, Map.of("max_connections", "50"))) {
            LOG.info(
                    "Second embedded start (existing data) took {} ms",
                    (System.nanoTime() - secondStartNanos) / 1_000_000);
            try (Connection connection = second.endpoint().connect("postgres");
                    Statement statement = connection.createStatement();
                    ResultSet result = statement.executeQuery("SELECT note FROM kept")) {
                assertThat(result.next()).isTrue();
                assertThat(result.getString(1)).isEqualTo("from the first run");
            }
            try (Connection connection = second.endpoint().connect("postgres");
                    Statement statement = connection.createStatement();
                    ResultSet result = statement.executeQuery("SHOW max_connections")) {
                result.next();
                assertThat(result.getString(1)).isEqualTo("50");
            }
        }
    }

    private static void execute(LocalPostgres postgres, String... statements) throws SQLException {
        try (Connection connection = postgres.endpoint().connect("postgres");
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}

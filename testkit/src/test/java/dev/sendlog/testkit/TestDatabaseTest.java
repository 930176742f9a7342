package dev.sendlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.infra.PostgresEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class TestDatabaseTest {
    @Test
    void isMigratedUsableAndDroppedOnClose() throws SQLException {
        String name;
        PostgresEndpoint cluster;
        try (TestDatabase database = TestDatabase.create()) {
            name = database.name();
            cluster = database.endpoint();
            assertThat(name).matches("sendlog_t_[0-9a-f]{16}");
            assertThat(database.jdbcUrl()).endsWith("/" + name);
            assertThat(databaseExists(cluster, name)).isTrue();
            assertThat(relationKind(database, "message_events")).isEqualTo("p");
            assertThat(relationKind(database, "messages")).isEqualTo("p");

            try (Connection connection = database.dataSource().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE scratch (id int PRIMARY KEY, note text)");
                statement.execute("INSERT INTO scratch VALUES (1, 'written')");
                try (ResultSet result = statement.executeQuery("SELECT note FROM scratch WHERE id = 1")) {
                    assertThat(result.next()).isTrue();
                    assertThat(result.getString(1)).isEqualTo("written");
                }
            }
        }
        assertThat(databaseExists(cluster, name)).isFalse();
    }

    @Test
    void anEmptyDatabaseHasNoSchema() throws SQLException {
        try (TestDatabase database = TestDatabase.createEmpty()) {
            assertThat(relationKind(database, "message_events")).isNull();
            assertThat(relationKind(database, "flyway_schema_history")).isNull();
        }
    }

    @Test
    void databasesCreatedAtTheSameTimeGetDifferentNames() {
        CompletableFuture<TestDatabase> first = CompletableFuture.supplyAsync(TestDatabase::createEmpty);
        CompletableFuture<TestDatabase> second = CompletableFuture.supplyAsync(TestDatabase::createEmpty);
        List<TestDatabase> both = List.of(first.join(), second.join());
        try {
            assertThat(both.get(0).name()).isNotEqualTo(both.get(1).name());
        } finally {
            both.forEach(TestDatabase::close);
        }
    }

    @Test
    void droppingEndsSessionsStillConnected() throws SQLException {
        TestDatabase database = TestDatabase.create();
        try (Connection leftOpen = database.connect()) {
            database.close();
            assertThat(databaseExists(database.endpoint(), database.name())).isFalse();
            assertThat(leftOpen.isValid(2)).isFalse();
        }
    }

    static boolean databaseExists(PostgresEndpoint cluster, String name) throws SQLException {
        try (Connection admin = cluster.connect(cluster.adminDatabase());
                PreparedStatement query = admin.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            query.setString(1, name);
            try (ResultSet result = query.executeQuery()) {
                return result.next();
            }
        }
    }

    /** pg_class.relkind of a table in the public schema ('p' = partitioned, 'r' = plain), null if missing. */
    static String relationKind(TestDatabase database, String table) throws SQLException {
        try (Connection connection = database.connect();
                PreparedStatement query = connection.prepareStatement(
                        "SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                                + "WHERE n.nspname = 'public' AND c.relname = ?")) {
            query.setString(1, table);
            try (ResultSet result = query.executeQuery()) {
                return result.next() ? result.getString(1) : null;
            }
        }
    }
}

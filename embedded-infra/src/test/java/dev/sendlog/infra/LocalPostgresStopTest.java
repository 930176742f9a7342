package dev.sendlog.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL that does not stop when asked (as one did in a chaos run on a machine at load 30) is killed with its
 * backends, so that the next start on its folder works; killed alone, its backends kept the shared memory and the
 * restart failed with "pre-existing shared memory block is still in use".
 */
class LocalPostgresStopTest {
    private Path stateDir;

    @BeforeEach
    void createStateDir() {
        stateDir = Directories.createTemp("local-postgres-stop-test-");
    }

    @AfterEach
    void deleteStateDir() {
        Directories.deleteRecursively(stateDir);
    }

    @Test
    void aServerThatIgnoresTheShutdownIsKilledWithItsBackendsAndStartsAgainOnItsFolder() throws Exception {
        Path folder = stateDir.resolve("postgres");
        LocalPostgres postgres = LocalPostgres.start(folder, 0, Map.of());
        Connection held = postgres.endpoint().connect("postgres");
        assertThat(one(held, "SELECT 1")).isEqualTo("1");
        List<ProcessHandle> all =
                ProcessHandle.of(postgres.pid()).orElseThrow().descendants().toList();
        assertThat(all).as("its backends and auxiliary processes").isNotEmpty();
        // Stopped, the postmaster and its children neither shut down nor notice one another's death.
        Signals.send(postgres.pid(), "STOP");
        all.forEach(p -> Signals.send(p.pid(), "STOP"));

        postgres.stopTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
        postgres.close();
        try {
            held.close();
        } catch (SQLException gone) {
            // The server it talked to was killed.
        }

        assertThat(ProcessHandle.of(postgres.pid()).map(ProcessHandle::isAlive).orElse(false))
                .isFalse();
        assertThat(all).noneMatch(ProcessHandle::isAlive);
        try (LocalPostgres again = LocalPostgres.start(folder, 0, Map.of());
                Connection c = again.endpoint().connect("postgres")) {
            assertThat(one(c, "SELECT 'up again'")).isEqualTo("up again");
        }
    }

    @Test
    void anotherClusterOnThePortIsNotTakenForOurs() throws Exception {
        try (LocalPostgres first = LocalPostgres.start(stateDir.resolve("first"), 0, Map.of())) {
            int port = first.endpoint().port();
            Path secondData = stateDir.resolve("second").resolve("pgdata");
            // The readiness check asks whose cluster answers: the first's is not the second's.
            assertThatThrownBy(() -> PostgresAdmin.checkAnswers(first.endpoint(), secondData))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("not of " + secondData);
            PostgresAdmin.checkAnswers(
                    first.endpoint(), stateDir.resolve("first").resolve("pgdata"));

            assertThatThrownBy(() -> LocalPostgres.start(stateDir.resolve("second"), port, Map.of()))
                    .isInstanceOf(ServerStartException.class);
            try (Connection c = first.endpoint().connect("postgres")) {
                assertThat(one(c, "SELECT 'first still serves'")).isEqualTo("first still serves");
            }
        }
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getString(1);
        }
    }
}

package dev.sendlog.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReachabilityTest {
    @Test
    void aListeningPortIsOpenAndAFreeOneIsNot() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(Reachability.isOpen("127.0.0.1", server.getLocalPort(), Duration.ofSeconds(1)))
                    .isTrue();
            assertThat(FreePorts.isFree(server.getLocalPort())).isFalse();
        }
        int free = FreePorts.free();
        assertThat(FreePorts.isFree(free)).isTrue();
        assertThat(Reachability.isOpen("127.0.0.1", free, Duration.ofSeconds(1)))
                .isFalse();
    }

    @Test
    void endpointsFormatTheirAddresses() {
        assertThat(RedisEndpoint.parse("redis://10.0.0.1:7000")).isEqualTo(new RedisEndpoint("10.0.0.1", 7000));
        assertThat(new RedisEndpoint("127.0.0.1", 6379).uri()).isEqualTo("redis://127.0.0.1:6379");
        PostgresEndpoint postgres = new PostgresEndpoint("127.0.0.1", 5432, "postgres", "secret", "postgres");
        assertThat(postgres.jdbcUrl("sendlog")).isEqualTo("jdbc:postgresql://127.0.0.1:5432/sendlog");
        assertThat(postgres.toString()).doesNotContain("secret");
    }
}

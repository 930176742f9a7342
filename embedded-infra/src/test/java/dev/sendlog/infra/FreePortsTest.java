package dev.sendlog.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    /**
     * A port handed to a server we start lies below the ephemeral range, where no outgoing connection's local port can
     * take it between the pick and the bind, and a server can bind it.
     */
    @Test
    void aFreePortIsBelowTheEphemeralRangeAndBindable() throws Exception {
        int low = FreePorts.ephemeralLow();
        assertThat(low).as("this machine leaves room below its ephemeral range").isGreaterThan(FreePorts.LOWEST);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            int port = FreePorts.free();
            assertThat(port).isBetween(FreePorts.LOWEST, low - 1);
            seen.add(port);
            try (ServerSocket server = new ServerSocket()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                assertThat(FreePorts.isFree(port))
                        .as("a port a server listens on is not free")
                        .isFalse();
            }
        }
        assertThat(seen).as("picked at random, not one fixed port").hasSizeGreaterThan(1);
    }

    /**
     * A port is taken only when its server binds it, which for a process still starting is seconds after the pick: no
     * second pick of this JVM may get it meanwhile. Two thousand picks at random among the ports below the ephemeral
     * range would repeat one close to ninety times.
     */
    @Test
    void noPortIsHandedOutTwice() {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            int port = FreePorts.free();
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }
}

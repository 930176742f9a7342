package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** TCP ports on the loopback interface. */
public final class FreePorts {
    private static final Logger LOG = LoggerFactory.getLogger(FreePorts.class);

    private FreePorts() {}

    /** The lowest port a server may be given below the ephemeral range. */
    static final int LOWEST = 10_000;

    /**
     * Every port this JVM has handed out, never handed out again: a port is free when it is picked and taken only when
     * the server binds it, seconds later for a process still starting, and a second pick in between saw it free too (a
     * poller process of ShardFailoverTest failed to bind the port another server of the same test had been given).
     */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /**
     * A port nobody listens on right now, below the kernel's ephemeral range when there is room there. A port the
     * kernel hands out for "port 0" comes from the ephemeral range, and so does the local port of every outgoing
     * connection: a test that picks such a port and starts a server on it a moment later can find it taken by a client
     * socket of any process on the machine (a poller process failed to bind this way under scripts/test). Below the
     * range only another server picking the same random port can take it first, and the range's size makes that rare.
     */
    public static int free() {
        int below = ephemeralLow();
        for (int i = 0; i < 50 && below > LOWEST; i++) {
            int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(LOWEST, below);
            if (!HANDED_OUT.contains(port) && isFree(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        for (int i = 0; i < 50; i++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = socket.getLocalPort();
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not find a free TCP port", e);
            }
        }
        throw new IllegalStateException("no free TCP port that this JVM has not handed out already");
    }

    /** The first port of the ephemeral range (Linux's {@code ip_local_port_range}; 32768, its default, elsewhere). */
    static int ephemeralLow() {
        try {
            // Read as a stream: /proc reports a size of 0, and Files.readString then reads one byte ("3" of "32768").
            String range;
            try (var in = java.nio.file.Files.newInputStream(
                    java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
                range = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            }
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    /** Whether a server could bind 127.0.0.1:{@code port} now. */
    public static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            // Like the servers we start: a port in TIME_WAIT counts as free.
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            LOG.debug("Port {} is busy: {}", port, e.toString());
            return false;
        }
    }
}

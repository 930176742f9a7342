package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** TCP ports on the loopback interface. */
public final class FreePorts {
    private static final Logger LOG = LoggerFactory.getLogger(FreePorts.class);

    private FreePorts() {
    }

    /** A port nobody listens on right now (another process may still take it before we bind it). */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free TCP port", e);
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

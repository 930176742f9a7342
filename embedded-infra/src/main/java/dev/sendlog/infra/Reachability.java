package dev.sendlog.infra;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Is anything listening there? A TCP connect, nothing more. */
public final class Reachability {
    private static final Logger LOG = LoggerFactory.getLogger(Reachability.class);

    private Reachability() {}

    public static boolean isOpen(String host, int port, Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), Math.toIntExact(timeout.toMillis()));
            return true;
        } catch (IOException e) {
            LOG.debug("Nothing reachable at {}:{} within {} ms: {}", host, port, timeout.toMillis(), e.toString());
            return false;
        }
    }
}

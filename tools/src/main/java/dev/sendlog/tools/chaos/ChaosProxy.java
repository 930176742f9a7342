package dev.sendlog.tools.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy between the send workers and the provider simulator, so the network between them can be delayed or cut
 * on a machine where tc and network namespaces are not at hand.
 */
final class ChaosProxy implements AutoCloseable {
    enum Mode {
        NORMAL,
        DELAY,
        CUT,
        REFUSE
    }

    private volatile ServerSocket server;
    private final int port;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.NORMAL;
    private volatile int delayMs;
    private volatile boolean running = true;

    ChaosProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        this.port = server.getLocalPort();
        Thread.ofVirtual().start(this::acceptLoop);
    }

    int port() {
        return port;
    }

    /** Back to passing bytes as they come; after {@link #refuse}, listening again on the same port. */
    synchronized void normal() throws IOException {
        if (server.isClosed()) {
            ServerSocket again = new ServerSocket();
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 512);
            server = again;
            notifyAll();
        }
        mode = Mode.NORMAL;
    }

    /**
     * Stops listening and cuts every open connection until {@link #normal}: a new connection is refused, as by a provider
     * whose host is down, so the send worker knows the provider did not take the submit (a failover), while a request
     * already on an open connection is cut (its outcome unknown: no failover).
     */
    synchronized void refuse() throws IOException {
        mode = Mode.REFUSE;
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    void delay(int ms) {
        delayMs = ms;
        mode = Mode.DELAY;
    }

    /** Cuts every open connection and refuses new ones (accepts and closes them at once) until {@link #normal}. */
    void cut() {
        mode = Mode.CUT;
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    private void acceptLoop() {
        while (running) {
            try {
                awaitListening();
                Socket client = server.accept();
                if (mode == Mode.CUT) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                open.add(client);
                open.add(upstream);
                Thread.ofVirtual().start(() -> pipe(client, upstream));
                Thread.ofVirtual().start(() -> pipe(upstream, client));
            } catch (IOException e) {
                if (!running) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void awaitListening() throws InterruptedException {
        while (mode == Mode.REFUSE && running) {
            wait();
        }
    }

    private void pipe(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (mode == Mode.DELAY && delayMs > 0) {
                    Thread.sleep(delayMs);
                }
                if (mode == Mode.CUT) {
                    break;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the other side closed, or the cut did: the connection ends
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing a connection that is already gone
        }
    }

    @Override
    public void close() throws IOException {
        running = false;
        synchronized (this) {
            notifyAll();
        }
        server.close();
        open.forEach(ChaosProxy::closeQuietly);
    }
}

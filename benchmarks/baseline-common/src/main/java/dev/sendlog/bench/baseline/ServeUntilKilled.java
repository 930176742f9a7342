package dev.sendlog.bench.baseline;

import java.util.concurrent.CountDownLatch;

/** The end of a baseline's main: serve the accept endpoint until the process is killed, then close in order. */
public final class ServeUntilKilled {
    private ServeUntilKilled() {}

    /** Prints {@code label} and the URL (the harness waits for {@code GET /health}), then blocks until killed. */
    public static void serve(String label, int port, AcceptServer.Acceptor acceptor, AutoCloseable... resources)
            throws Exception {
        AcceptServer server = AcceptServer.start(port, acceptor);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            for (AutoCloseable resource : resources) {
                                try {
                                    resource.close();
                                } catch (Exception e) {
                                    System.err.println("closing " + resource + " failed: " + e);
                                }
                            }
                            stopped.countDown();
                        },
                        "shutdown"));
        System.out.println(label + " listening on http://127.0.0.1:" + server.port());
        System.out.flush();
        stopped.await();
    }
}

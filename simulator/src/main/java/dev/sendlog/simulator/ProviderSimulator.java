package dev.sendlog.simulator;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A provider that speaks the provider contract on 127.0.0.1, for tests, demos and benchmarks. Every request
 * runs on its own virtual thread, so the simulated latency costs no platform thread.
 */
public final class ProviderSimulator implements AutoCloseable {
    private static final int ACCEPT_BACKLOG = 1024;

    static {
        // The JDK server reads these once, when its first instance starts; an explicit setting wins.
        setIfAbsent("sun.net.httpserver.nodelay", "true");
        // The default of 200 idle connections would close keep-alive connections of busier clients.
        setIfAbsent("sun.net.httpserver.maxIdleConnections", "4096");
    }

    private final HttpServer server;
    private final ExecutorService requestThreads;
    private final CallbackSender callbackSender;
    private final AtomicReference<ActiveConfig> activeConfig;
    private final AtomicReference<SimulatorState> state = new AtomicReference<>(new SimulatorState());

    private ProviderSimulator(SimulatorConfig config, int port) throws IOException {
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        // Bound first: a port in use fails here, before any thread or client exists.
        server = HttpServer.create(new InetSocketAddress(loopback, port), ACCEPT_BACKLOG);
        activeConfig = new AtomicReference<>(ActiveConfig.of(config));
        callbackSender = new CallbackSender(config);
        requestThreads = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(requestThreads);
        SubmitHandler submitHandler = new SubmitHandler(activeConfig::get, state::get, callbackSender);
        server.createContext(
                "/",
                new SimulatorHttpHandler(this, submitHandler, new StatusQueryHandler(activeConfig::get, state::get)));
    }

    /** Starts a simulator on 127.0.0.1; port 0 picks a free port. */
    public static ProviderSimulator start(SimulatorConfig config, int port) throws IOException {
        ProviderSimulator simulator = new ProviderSimulator(config, port);
        simulator.server.start();
        return simulator;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** For example {@code http://127.0.0.1:9090}, without a trailing slash. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    public SimulatorStats stats() {
        return state.get().stats();
    }

    public SimulatorConfig config() {
        return activeConfig.get().config();
    }

    /** Submits that start after this call use the new configuration, with a random sequence from its seed. */
    public void updateConfig(SimulatorConfig config) {
        activeConfig.set(ActiveConfig.of(config));
        callbackSender.reconfigure(config);
    }

    /** Forgets every recorded submit and callback, sets the counters and the id counter back to zero. */
    public void reset() {
        state.set(new SimulatorState());
    }

    /** The recorded idempotency keys, as {@code GET /v1/keys} lists them. */
    public List<String> keys() {
        return List.copyOf(state.get().keys());
    }

    SimulatorState state() {
        return state.get();
    }

    /** Stops the server, then the callbacks still waiting or in flight. */
    @Override
    public void close() {
        server.stop(0);
        requestThreads.shutdownNow();
        callbackSender.close();
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}

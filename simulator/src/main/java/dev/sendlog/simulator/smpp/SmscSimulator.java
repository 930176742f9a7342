package dev.sendlog.simulator.smpp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jsmpp.DefaultPDUReader;
import org.jsmpp.PDUStringException;
import org.jsmpp.SMPPConstant;
import org.jsmpp.SynchronizedPDUSender;
import org.jsmpp.extra.SessionState;
import org.jsmpp.session.BindRequest;
import org.jsmpp.session.SMPPServerSession;
import org.jsmpp.session.Session;
import org.jsmpp.session.SessionStateListener;
import org.jsmpp.session.connection.socket.SocketConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SMSC that speaks SMPP 3.4 on 127.0.0.1, built on jsmpp's server session, for tests, demos and chaos runs of
 * the SMPP gateway. It accepts binds of one system_id and password, answers submit_sm with predictable message ids
 * or with the faults of {@link SmscConfig}, records what it accepted, and sends delivery receipts as deliver_sm,
 * retried until a client acknowledges them.
 *
 * <p>jsmpp's {@code SMPPServerSessionListener} could listen on loopback only (through a {@code ServerConnectionFactory})
 * but builds every session with jsmpp's own PDU writer, which always answers enquire_link and submit_sm. So the
 * simulator accepts connections itself, on a {@link ServerSocket} bound to 127.0.0.1, and builds each
 * {@link SMPPServerSession} with a writer that can leave answers out ({@link SmscPduSender}).
 *
 * <p>Threads: one accepting connections; per connection jsmpp's reader, its enquire_link sender and
 * {@link #PDU_THREADS} PDU threads (the simulated latency holds one of them per submit); one virtual thread per
 * bind handshake; {@link SmscReceiptSender}'s fixed pool for receipts.
 */
public final class SmscSimulator implements AutoCloseable {
    /** PDU threads per session: submits in flight at once per session, each holding one for {@code latencyMs}. */
    static final int PDU_THREADS = 16;
    /** PDUs waiting for a PDU thread beyond which jsmpp itself answers ESME_RTHROTTLED. */
    static final int PDU_QUEUE = 1_000;
    /** How long a new connection has to send its bind. */
    static final long BIND_WAIT_MS = 5_000;
    /** The system_id in our bind_resp. */
    static final String SMSC_SYSTEM_ID = "sendlog-smsc";

    /** How long a refused connection may stay open for its client to close it. */
    static final long REFUSED_LINGER_MS = 1_000;

    private static final int ACCEPT_BACKLOG = 128;
    private static final Logger log = LoggerFactory.getLogger(SmscSimulator.class);

    private final ServerSocket serverSocket;
    private final AtomicReference<SmscConfig> config;
    private final AtomicReference<SmscState> state;
    private final AtomicReference<TokenBucket> bucket;
    private static final com.fasterxml.jackson.databind.ObjectMapper JOURNAL_JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();
    private final AtomicReference<java.util.function.Consumer<SmscSubmit>> journal =
            new AtomicReference<>(submit -> {});
    private final SmscSessions sessions = new SmscSessions();
    private final Set<String> responsesToLose = ConcurrentHashMap.newKeySet();
    private final SmscReceiptSender receiptSender = new SmscReceiptSender(sessions);
    private final SmscSubmitHandler handler;
    private final ExecutorService bindThreads = Executors.newVirtualThreadPerTaskExecutor();
    private final Thread acceptThread;
    private volatile boolean refuseBinds;
    private volatile boolean closed;

    private SmscSimulator(SmscConfig config, int port) throws IOException {
        serverSocket = new ServerSocket();
        serverSocket.setReuseAddress(true);
        // Bound first: a port in use fails here, before any thread exists.
        serverSocket.bind(
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port), ACCEPT_BACKLOG);
        this.config = new AtomicReference<>(config);
        this.state = new AtomicReference<>(new SmscState(config.firstId()));
        this.bucket = new AtomicReference<>(new TokenBucket(config.maxPerSecond()));
        handler = new SmscSubmitHandler(
                this.config::get,
                this.state::get,
                this.bucket::get,
                sessions,
                responsesToLose,
                receiptSender,
                this.journal::get);
        acceptThread = new Thread(this::acceptLoop, "smsc-accept-" + port());
        acceptThread.setDaemon(true);
    }

    /** Starts an SMSC on 127.0.0.1; port 0 picks a free port. */
    public static SmscSimulator start(SmscConfig config, int port) throws IOException {
        SmscSimulator simulator = new SmscSimulator(config, port);
        simulator.acceptThread.start();
        return simulator;
    }

    public int port() {
        return serverSocket.getLocalPort();
    }

    public SmscConfig config() {
        return config.get();
    }

    /**
     * Submits decided after this call use the new configuration. The rate bucket starts full again when
     * {@code maxPerSecond} changes; the id counter goes on (only {@link #clear()} restarts it at {@code firstId}).
     */
    public void reconfigure(SmscConfig newConfig) {
        SmscConfig old = config.getAndSet(newConfig);
        if (old.maxPerSecond() != newConfig.maxPerSecond()) {
            bucket.set(new TokenBucket(newConfig.maxPerSecond()));
        }
    }

    /** Accepted submits (each part of a long message on its own) in the order they were accepted. */
    public List<SmscSubmit> submits() {
        return state.get().submits();
    }

    public SmscStats stats() {
        return state.get().stats(sessions.bound());
    }

    /**
     * Forgets the recorded submits, zeroes the counters and restarts message ids at {@code firstId}. Receipts
     * still owed are still sent, but counted in the forgotten counters.
     */
    /**
     * Appends every accepted submit to {@code file}, one JSON line each, before its answer is sent: a record that
     * outlives the process (a chaos run kills it with SIGKILL and checks afterwards that nothing reached it twice).
     */
    public void journalTo(java.nio.file.Path file) throws IOException {
        java.io.OutputStream out = java.nio.file.Files.newOutputStream(
                file, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        journal.set(submit -> {
            com.fasterxml.jackson.databind.node.ObjectNode line = JOURNAL_JSON
                    .createObjectNode()
                    .put("messageId", submit.messageId())
                    .put("destAddr", submit.destAddr())
                    .put("text", submit.text())
                    .put("partNumber", submit.partNumber())
                    .put("partCount", submit.partCount())
                    .put("at", submit.at().toString());
            try {
                byte[] bytes = (JOURNAL_JSON.writeValueAsString(line) + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                synchronized (out) {
                    out.write(bytes); // unbuffered: in the kernel once written, so a SIGKILL loses none
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    public void clear() {
        state.set(new SmscState(config.get().firstId()));
    }

    /** Closes every bound session's connection at once, without unbind, as a crashing SMSC or a cut link would. */
    public void dropBinds() {
        for (SMPPServerSession session : sessions.boundSessions()) {
            log.info("dropping session {} of {}", session.getSessionId(), sessions.systemIdOf(session));
            session.close();
        }
    }

    /** While true, every bind is answered ESME_RBINDFAIL. */
    public void refuseBinds(boolean refuse) {
        refuseBinds = refuse;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("accepting a connection failed: {}", e.getMessage());
                }
                continue;
            }
            try {
                bindThreads.execute(() -> handshake(socket));
            } catch (RuntimeException e) {
                closeQuietly(socket);
            }
        }
    }

    private void handshake(Socket socket) {
        SMPPServerSession session;
        try {
            socket.setTcpNoDelay(true);
            SocketConnection connection = new SocketConnection(socket);
            connection.setSoTimeout((int) BIND_WAIT_MS);
            SmscPduSender writer = new SmscPduSender(() -> config.get().enquireLinkResponse(), responsesToLose);
            session = new SMPPServerSession(
                    connection,
                    new Forget(),
                    handler,
                    handler,
                    PDU_THREADS,
                    PDU_QUEUE,
                    new SynchronizedPDUSender(writer),
                    new DefaultPDUReader());
        } catch (IOException | RuntimeException e) {
            log.warn("setting up a session failed: {}", e.getMessage());
            closeQuietly(socket);
            return;
        }
        session.setTransactionTimer(SmscReceiptSender.RESPONSE_TIMEOUT_MS);
        sessions.opened(session);
        if (closed) {
            session.close();
            return;
        }
        try {
            BindRequest bind = session.waitForBind(BIND_WAIT_MS);
            answer(session, bind);
        } catch (TimeoutException e) {
            log.info("no bind within {} ms from {}", BIND_WAIT_MS, socket.getRemoteSocketAddress());
            session.close();
        } catch (IOException | PDUStringException | RuntimeException e) {
            log.warn("bind handshake failed: {}", e.toString());
            session.close();
        }
    }

    private void answer(SMPPServerSession session, BindRequest bind) throws IOException, PDUStringException {
        SmscConfig current = config.get();
        SmscState counters = state.get();
        int refusal = 0;
        if (refuseBinds) {
            refusal = SMPPConstant.STAT_ESME_RBINDFAIL;
        } else if (!current.systemId().equals(bind.getSystemId())) {
            refusal = SMPPConstant.STAT_ESME_RINVSYSID;
        } else if (!current.password().equals(bind.getPassword())) {
            refusal = SMPPConstant.STAT_ESME_RINVPASWD;
        }
        if (refusal != 0) {
            counters.bindsRefused.increment();
            log.info("bind of {} refused with 0x{}", bind.getSystemId(), Integer.toHexString(refusal));
            bind.reject(refusal);
            closeAfterRefusal(session);
            return;
        }
        sessions.binding(session, bind.getSystemId());
        bind.accept(SMSC_SYSTEM_ID, bind.getInterfaceVersion());
        counters.bindsAccepted.increment();
        log.info("{} bound as {} (session {})", bind.getSystemId(), bind.getBindType(), session.getSessionId());
    }

    /**
     * Leaves the client a moment to close first: jsmpp's client hands a PDU to another thread before reading on,
     * so a connection closed right behind the refusal can make it drop the refusal and wait for its bind timeout.
     * Runs on the handshake's virtual thread, so the wait costs no platform thread.
     */
    private static void closeAfterRefusal(SMPPServerSession session) {
        long deadline = System.nanoTime() + REFUSED_LINGER_MS * 1_000_000;
        try {
            while (session.getSessionState() != SessionState.CLOSED && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        session.close();
    }

    /** Drops a session from the registry once it is unbound or closed. */
    private final class Forget implements SessionStateListener {
        @Override
        public void onStateChange(SessionState newState, SessionState oldState, Session source) {
            if (SmscSessions.isGone(newState) && source instanceof SMPPServerSession session) {
                sessions.closed(session);
            }
        }
    }

    /** Stops listening, cuts every connection (no unbind) and drops the receipts still owed. */
    @Override
    public void close() {
        closed = true;
        try {
            serverSocket.close();
        } catch (IOException e) {
            log.debug("closing the listening socket: {}", e.getMessage());
        }
        receiptSender.close();
        for (SMPPServerSession session : sessions.all()) {
            session.close();
        }
        bindThreads.shutdownNow();
        try {
            acceptThread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already gone.
        }
    }
}

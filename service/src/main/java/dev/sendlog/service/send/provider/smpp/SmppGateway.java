package dev.sendlog.service.send.provider.smpp;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.SmppSettings;
import dev.sendlog.service.log.Segments;
import dev.sendlog.service.send.provider.Provider;
import dev.sendlog.service.send.provider.Submit;
import dev.sendlog.service.send.provider.SubmitOutcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jsmpp.InvalidResponseException;
import org.jsmpp.PDUException;
import org.jsmpp.bean.AlertNotification;
import org.jsmpp.bean.Alphabet;
import org.jsmpp.bean.BindType;
import org.jsmpp.bean.DataCoding;
import org.jsmpp.bean.DataSm;
import org.jsmpp.bean.DeliverSm;
import org.jsmpp.bean.ESMClass;
import org.jsmpp.bean.GeneralDataCoding;
import org.jsmpp.bean.NumberingPlanIndicator;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.bean.RegisteredDelivery;
import org.jsmpp.bean.SMSCDeliveryReceipt;
import org.jsmpp.bean.TypeOfNumber;
import org.jsmpp.extra.NegativeResponseException;
import org.jsmpp.extra.ProcessRequestException;
import org.jsmpp.extra.ResponseTimeoutException;
import org.jsmpp.session.BindParameter;
import org.jsmpp.session.DataSmResult;
import org.jsmpp.session.MessageReceiverListener;
import org.jsmpp.session.SMPPSession;
import org.jsmpp.session.Session;
import org.jsmpp.session.SubmitSmResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway of {@code type: smpp}: {@code sessions} transceiver binds to one SMSC (docs/api.md, "SMPP gateways"),
 * shared by every lane of this process.
 *
 * <ul>
 *   <li>Binds: each has a thread of its own that binds, waits until the session is lost (an unbind, a dropped
 *       connection, an {@code enquire_link} unanswered), and binds again after a backoff that doubles from
 *       {@code reconnectMin} to {@code reconnectMax}, with jitter so that many processes do not bind in step.
 *   <li>Window: at most {@code window} {@code submit_sm} outstanding per bind; a submit waits for a slot on any bound
 *       session up to the gateway's request timeout. No bind up: the SMSC certainly did not get the message, so the
 *       outcome is a transient refusal (a routed message may pass to its next gateway), never a wait without end.
 *   <li>Submit: GSM 03.38 ({@code data_coding} 0, unpacked) when the body is GSM text, else UCS-2 (8); a body longer
 *       than one segment goes whole in the {@code message_payload} TLV (one {@code submit_sm}, one message id, the
 *       SMSC splits it). Concatenation with a UDH, one {@code submit_sm} per part, is not built yet (issue 28).
 *       {@code registered_delivery} asks for a final receipt; the validity, when the message has one, is the
 *       absolute {@code validity_period}; the sender id sets the source TON/NPI ({@link SmppAddress}).
 *   <li>Outcomes: a message id is an acceptance (written in the receipts' form, {@link SmppIds}); error statuses as
 *       {@link SmppStatuses} says; no {@code submit_sm_resp} in time is {@link SubmitOutcome.Unknown} (SMPP has no
 *       idempotency key: submitting again could send it twice) unless the gateway sets {@code resubmitAfterTimeout}.
 *   <li>Receipts: a {@code deliver_sm} receipt is stored in the callback inbox first and answered
 *       {@code deliver_sm_resp} only then; one that cannot be stored is answered {@code ESME_RX_T_APPN}, so the SMSC
 *       sends it again. Nothing is acknowledged before it is durable.
 * </ul>
 */
public final class SmppGateway implements Provider, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SmppGateway.class);
    private static final DateTimeFormatter VALIDITY =
            DateTimeFormatter.ofPattern("yyMMddHHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DataCoding GSM = new GeneralDataCoding(Alphabet.ALPHA_DEFAULT);
    private static final DataCoding UCS2 = new GeneralDataCoding(Alphabet.ALPHA_UCS2);
    /** esm_class with the UDH indicator: the short_message starts with a user data header. */
    private static final byte UDHI = 0x40;

    /** Where receipts go: the callback inbox. Returns only once the body is durable; throws when it is not. */
    @FunctionalInterface
    public interface ReceiptSink {
        void store(byte[] body);
    }

    private final String gateway;
    private final SmppSettings settings;
    private final SmppIds ids;
    private final Duration requestTimeout;
    private final ReceiptSink receipts;
    private final List<Bind> binds = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    /** The concatenation reference of the next message sent in parts (8 bits: it wraps, as SMSCs expect). */
    private final AtomicInteger references =
            new AtomicInteger(ThreadLocalRandom.current().nextInt(256));
    /** {@code longMessages: payload}: a long body goes whole in {@code message_payload} instead of UDH parts. */
    private final boolean payload;

    private final Timer submitTimer;
    private final Counter throttles;
    private final Counter unknown;
    private final Counter bindFailures;
    private final Counter receiptsStored;
    private final Counter receiptsRefused;
    private final Counter mobileOriginated;
    private volatile boolean closed;
    /** Receipts being stored: one virtual thread each, as many as the SMSC has outstanding on the binds. */
    private final java.util.concurrent.ExecutorService receiptStores =
            java.util.concurrent.Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("smpp-receipt-", 0).factory());
    /**
     * Connections with TCP_NODELAY and the gateway's connect timeout. Without NODELAY, Nagle's algorithm holds each
     * submit_sm written while an earlier one is unacknowledged until that one's ACK comes (delayed, or with its response):
     * measured with scripts/bench-smpp, a window of w gave the throughput of w - 1 (a window of 2 that of 1).
     */
    private final org.jsmpp.session.connection.ConnectionFactory connections;
    /** Counted down on close: a bind waiting out its backoff stops at once. */
    private final java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);

    private volatile String lastBindError = "not bound yet";

    public SmppGateway(String gateway, GatewaySettings settings, ReceiptSink receipts, MetricRegistry metrics) {
        this.gateway = gateway;
        this.settings = settings.smpp;
        this.ids = SmppIds.of(settings.smpp.idFormat);
        this.payload = "payload".equals(settings.smpp.longMessages);
        int connectTimeoutMs = settings.connectTimeoutMs;
        this.connections = (host, port) -> {
            java.net.Socket socket = new java.net.Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.connect(new java.net.InetSocketAddress(host, port), connectTimeoutMs);
                return new org.jsmpp.session.connection.socket.SocketConnection(socket);
            } catch (IOException e) {
                socket.close();
                throw e;
            }
        };
        this.requestTimeout = Duration.ofMillis(settings.requestTimeoutMs);
        this.receipts = receipts;
        String prefix = "gateway." + gateway + ".smpp.";
        this.submitTimer = metrics.timer(prefix + "submit");
        this.throttles = metrics.counter(prefix + "throttles");
        this.unknown = metrics.counter(prefix + "unknown");
        this.bindFailures = metrics.counter(prefix + "binds.failed");
        this.receiptsStored = metrics.counter(prefix + "receipts.stored");
        this.receiptsRefused = metrics.counter(prefix + "receipts.refused");
        this.mobileOriginated = metrics.counter(prefix + "mo.ignored");
        for (int i = 0; i < this.settings.sessions; i++) {
            binds.add(new Bind(i));
        }
        metrics.gauge(prefix + "binds.up", () -> (Gauge<Integer>) this::bound);
        metrics.gauge(prefix + "window.inUse", () -> (Gauge<Integer>) this::windowInUse);
    }

    /** Starts every bind's thread; the binds come up in the background. */
    public void start() {
        binds.forEach(Bind::start);
    }

    /** Binds up now. */
    public int bound() {
        return (int) binds.stream().filter(Bind::isBound).count();
    }

    /** Submits outstanding now, over every bind. */
    public int windowInUse() {
        return binds.stream()
                .mapToInt(b -> settings.window - b.window.availablePermits())
                .sum();
    }

    public int sessions() {
        return binds.size();
    }

    /** Why the last bind failed or the last session was lost, for the health check. */
    public String lastBindError() {
        return lastBindError;
    }

    public String target() {
        return settings.host + ":" + settings.port;
    }

    @Override
    public SubmitOutcome submit(Submit submit) {
        long deadline = System.nanoTime() + requestTimeout.toNanos();
        Bind bind = takeSlot(deadline);
        if (bind == null) {
            return new SubmitOutcome.Transient(
                    bound() == 0
                            ? "no SMPP bind up to " + target() + " (" + lastBindError + ")"
                            : "no free window slot on " + target() + " within " + requestTimeout.toMillis() + " ms",
                    null,
                    true);
        }
        try (Timer.Context ignored = submitTimer.time()) {
            return send(bind, submit, deadline);
        } finally {
            bind.window.release();
        }
    }

    private Bind takeSlot(long deadline) {
        int n = binds.size();
        while (!closed) {
            int start = Math.floorMod(next.getAndIncrement(), n);
            Bind waitOn = null;
            for (int i = 0; i < n; i++) {
                Bind b = binds.get((start + i) % n);
                if (!b.isBound()) {
                    continue;
                }
                if (b.window.tryAcquire()) {
                    if (b.isBound()) {
                        return b;
                    }
                    b.window.release();
                } else if (waitOn == null) {
                    waitOn = b;
                }
            }
            long left = deadline - System.nanoTime();
            if (waitOn == null || left <= 0) {
                return null; // none bound, or the window stayed full until the deadline
            }
            try {
                // Every bind is full: wait on one for a slot, a short while, then look over all of them again.
                if (waitOn.window.tryAcquire(Math.min(left, TimeUnit.MILLISECONDS.toNanos(20)), TimeUnit.NANOSECONDS)) {
                    if (waitOn.isBound()) {
                        return waitOn;
                    }
                    waitOn.window.release();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    /** One {@code submit_sm}'s body: its coding, its short_message and its TLVs. */
    private record Pdu(DataCoding coding, ESMClass esmClass, byte[] shortMessage, OptionalParameter[] tlvs) {}

    /** What one {@code submit_sm} came to: the id it was given, or the outcome of a failed one. */
    private record PartResult(String messageId, SubmitOutcome failure) {}

    /**
     * The {@code submit_sm}s of a message, in order: one when it fits a segment (or goes in {@code message_payload}),
     * else one per part, each with a UDH ({@code 05 00 03 ref count number}) and the UDHI bit in {@code esm_class}.
     */
    List<byte[]> bodies(String body, int reference) {
        boolean gsm = Segments.isGsm7(body);
        List<String> parts = Segments.split(body);
        List<byte[]> out = new ArrayList<>(parts.size());
        if (parts.size() == 1 || payload) {
            out.add(encode(body, gsm));
            return out;
        }
        for (int i = 0; i < parts.size(); i++) {
            byte[] text = encode(parts.get(i), gsm);
            byte[] pdu = new byte[6 + text.length];
            pdu[0] = 0x05; // user data header length
            pdu[1] = 0x00; // concatenated short messages, 8-bit reference
            pdu[2] = 0x03;
            pdu[3] = (byte) reference;
            pdu[4] = (byte) parts.size();
            pdu[5] = (byte) (i + 1);
            System.arraycopy(text, 0, pdu, 6, text.length);
            out.add(pdu);
        }
        return out;
    }

    private static byte[] encode(String text, boolean gsm) {
        return gsm ? Segments.gsm7Unpacked(text) : text.getBytes(StandardCharsets.UTF_16BE);
    }

    private SubmitOutcome send(Bind bind, Submit submit, long deadline) {
        SMPPSession session = bind.session;
        if (session == null || !session.getSessionState().isBound()) {
            return new SubmitOutcome.Transient("the SMPP bind to " + target() + " was lost", null, true);
        }
        boolean gsm = Segments.isGsm7(submit.body());
        List<byte[]> bodies = bodies(submit.body(), references.getAndIncrement() & 0xFF);
        boolean whole = bodies.size() == 1;
        boolean inPayload = whole && Segments.of(submit.body()) > 1;
        List<String> accepted = new ArrayList<>(bodies.size());
        for (int i = 0; i < bodies.size(); i++) {
            byte[] b = bodies.get(i);
            Pdu pdu = new Pdu(
                    gsm ? GSM : UCS2,
                    whole ? new ESMClass() : new ESMClass(UDHI),
                    inPayload ? new byte[0] : b,
                    inPayload
                            ? new OptionalParameter[] {new OptionalParameter.Message_payload(b)}
                            : new OptionalParameter[0]);
            PartResult r = submitPart(session, submit, pdu, i > 0 ? deadline : 0);
            if (r.failure() != null) {
                if (i == 0) {
                    return r.failure(); // nothing of the message went out
                }
                // Parts went out and one did not: submitting the message again would send those parts twice.
                if (!(r.failure() instanceof SubmitOutcome.Unknown)) {
                    unknown.inc();
                }
                return new SubmitOutcome.Unknown("parts 1 to " + i + " of " + bodies.size() + " were accepted as "
                        + accepted + " and part " + (i + 1) + " was not: " + describe(r.failure())
                        + "; the message is not submitted again, so its first parts are not sent twice");
            }
            String id = ids.fromResponse(r.messageId());
            if (id == null || id.isEmpty()) {
                unknown.inc();
                return new SubmitOutcome.Unknown("the SMSC accepted part " + (i + 1) + " with message id \""
                        + r.messageId() + "\", which is not an id of the gateway's idFormat " + settings.idFormat);
            }
            accepted.add(id);
        }
        return new SubmitOutcome.Accepted(accepted.getFirst(), accepted.subList(1, accepted.size()));
    }

    private static String describe(SubmitOutcome o) {
        return switch (o) {
            case SubmitOutcome.Permanent p -> p.describe();
            case SubmitOutcome.Transient t -> t.reason();
            case SubmitOutcome.Throttled t -> t.reason();
            case SubmitOutcome.Unknown u -> u.reason();
            case SubmitOutcome.Accepted a -> "accepted";
        };
    }

    /**
     * One {@code submit_sm}. A later part ({@code retryUntil} > 0) that is throttled or refused for now is submitted
     * again, with a doubling pause, until {@code retryUntil}: the parts before it are out, so the message cannot go back
     * to the queue whole.
     */
    private PartResult submitPart(SMPPSession session, Submit submit, Pdu pdu, long retryUntil) {
        SmppAddress from = SmppAddress.source(submit.from(), settings.sourceAddress);
        SmppAddress to = SmppAddress.destination(submit.to());
        String validity = submit.validUntil() == null ? null : VALIDITY.format(submit.validUntil()) + "000+";
        long pauseMs = 50;
        while (true) {
            SubmitOutcome failure;
            try {
                SubmitSmResult result = session.submitShortMessage(
                        "",
                        from.ton(),
                        from.npi(),
                        from.address(),
                        to.ton(),
                        to.npi(),
                        to.address(),
                        pdu.esmClass(),
                        (byte) 0,
                        (byte) 0,
                        null,
                        validity,
                        new RegisteredDelivery(SMSCDeliveryReceipt.SUCCESS_FAILURE),
                        (byte) 0,
                        pdu.coding(),
                        (byte) 0,
                        pdu.shortMessage(),
                        pdu.tlvs());
                return new PartResult(result.getMessageId(), null);
            } catch (NegativeResponseException e) {
                failure = SmppStatuses.outcome(e.getCommandStatus());
                if (failure instanceof SubmitOutcome.Throttled) {
                    throttles.inc();
                }
            } catch (ResponseTimeoutException | InvalidResponseException e) {
                return new PartResult(
                        null,
                        afterNoAnswer("no valid submit_sm_resp within " + requestTimeout.toMillis() + " ms: " + e));
            } catch (PDUException e) {
                return new PartResult(
                        null,
                        new SubmitOutcome.Permanent("SMPP", 0, "the message cannot be written as a submit_sm: " + e));
            } catch (IOException e) {
                // The session could not write the PDU: it was closing or lost. Whether the SMSC read it is unknown.
                return new PartResult(
                        null,
                        session.getSessionState().isBound()
                                ? afterNoAnswer("the submit_sm could not be written whole: " + e)
                                : new SubmitOutcome.Transient(
                                        "the SMPP bind to " + target() + " was lost: " + e, null, true));
            }
            boolean again = failure instanceof SubmitOutcome.Throttled
                    || (failure instanceof SubmitOutcome.Transient t && t.notTaken());
            if (retryUntil == 0 || !again || System.nanoTime() + pauseMs * 1_000_000 > retryUntil) {
                return new PartResult(null, failure);
            }
            try {
                if (closing.await(pauseMs, TimeUnit.MILLISECONDS)) {
                    return new PartResult(null, failure);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new PartResult(null, failure);
            }
            pauseMs = Math.min(1_000, pauseMs * 2);
        }
    }

    private SubmitOutcome afterNoAnswer(String reason) {
        if (settings.resubmitAfterTimeout) {
            return new SubmitOutcome.Transient(reason, null, false);
        }
        unknown.inc();
        return new SubmitOutcome.Unknown(reason
                + "; the SMSC may have the message and SMPP has no idempotency key, so it is not submitted again");
    }

    @Override
    public void close() {
        closed = true;
        closing.countDown();
        binds.forEach(Bind::stop);
        receiptStores.shutdown(); // stores under way finish; their answers find the binds gone, and the SMSC resends
    }

    /** One transceiver bind and the thread that keeps it up. */
    private final class Bind implements MessageReceiverListener {
        private final int index;
        private final java.util.concurrent.Semaphore window;
        private final java.util.concurrent.Semaphore lost = new java.util.concurrent.Semaphore(0);
        private volatile SMPPSession session;
        private volatile ReceiptAnswers answers;
        private Thread thread;

        Bind(int index) {
            this.index = index;
            this.window = new java.util.concurrent.Semaphore(settings.window);
        }

        boolean isBound() {
            SMPPSession s = session;
            return s != null && s.getSessionState().isBound();
        }

        void start() {
            thread = Thread.ofPlatform()
                    .daemon()
                    .name("smpp-" + gateway + "-" + index)
                    .start(this::keepBound);
        }

        void stop() {
            if (thread != null) {
                thread.interrupt();
            }
            SMPPSession s = session;
            if (s != null) {
                s.unbindAndClose();
            }
        }

        private void keepBound() {
            long backoff = settings.reconnectMin.toMilliseconds();
            while (!closed) {
                ReceiptAnswers answers = new ReceiptAnswers();
                SMPPSession s = new SMPPSession(answers, new org.jsmpp.DefaultPDUReader(), connections);
                this.answers = answers;
                s.setTransactionTimer(requestTimeout.toMillis());
                s.setEnquireLinkTimer((int) settings.enquireLinkInterval.toMilliseconds());
                s.setMessageReceiverListener(this);
                s.addSessionStateListener((now, before, source) -> {
                    if (!now.isBound() && before.isBound()) {
                        lost.release();
                    }
                });
                try {
                    s.connectAndBind(
                            settings.host,
                            settings.port,
                            new BindParameter(
                                    BindType.BIND_TRX,
                                    settings.systemId,
                                    settings.password,
                                    settings.systemType,
                                    TypeOfNumber.UNKNOWN,
                                    NumberingPlanIndicator.UNKNOWN,
                                    null),
                            settings.bindTimeout.toMilliseconds());
                    session = s;
                    LOG.info("SMPP bind {} of gateway {} up to {}", index, gateway, target());
                    backoff = settings.reconnectMin.toMilliseconds();
                    lost.drainPermits();
                    if (!s.getSessionState().isBound()) {
                        lost.release(); // lost between the bind and the listener's first word
                    }
                    lost.acquire();
                    lastBindError = "bind " + index + " lost";
                    LOG.warn("SMPP bind {} of gateway {} to {} lost; binding again", index, gateway, target());
                } catch (IOException e) {
                    bindFailures.inc();
                    lastBindError = e.getMessage() == null ? e.toString() : e.getMessage();
                    LOG.warn(
                            "SMPP bind {} of gateway {} to {} failed: {}; again in {} ms",
                            index,
                            gateway,
                            target(),
                            lastBindError,
                            backoff);
                } catch (InterruptedException e) {
                    break;
                } finally {
                    if (session == s && !closed) {
                        session = null;
                    }
                    if (!closed) {
                        s.close();
                    }
                }
                try {
                    long jittered = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
                    if (closing.await(jittered, TimeUnit.MILLISECONDS)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    break;
                }
                backoff = Math.min(settings.reconnectMax.toMilliseconds(), backoff * 2);
            }
        }

        @Override
        public void onAcceptDeliverSm(DeliverSm deliverSm) throws ProcessRequestException {
            if (!deliverSm.isSmscDeliveryReceipt()) {
                // A mobile-originated message: sendlog sends, it does not receive. Acknowledged, counted and logged.
                mobileOriginated.inc();
                LOG.info(
                        "a mobile-originated deliver_sm from {} on gateway {} was acknowledged and not kept",
                        deliverSm.getSourceAddr(),
                        gateway);
                return;
            }
            byte[] body = SmppReceipts.body(deliverSm, ids);
            // Stored on a thread of its own; the answer waits for it (ReceiptAnswers), the session reads on.
            CompletableFuture<Boolean> stored = new CompletableFuture<>();
            answers.storing(deliverSm.getSequenceNumber(), stored);
            receiptStores.execute(() -> {
                try {
                    receipts.store(body);
                    receiptsStored.inc();
                    stored.complete(true);
                } catch (RuntimeException e) {
                    receiptsRefused.inc();
                    LOG.warn(
                            "a receipt on gateway {} was not stored, answered ESME_RX_T_APPN: {}",
                            gateway,
                            e.toString());
                    stored.complete(false);
                }
            });
        }

        @Override
        public void onAcceptAlertNotification(AlertNotification alertNotification) {
            // Nothing to do: sendlog does not wait for subscribers to become available.
        }

        @Override
        public DataSmResult onAcceptDataSm(DataSm dataSm, Session source) throws ProcessRequestException {
            throw new ProcessRequestException("data_sm is not taken", 0x03); // ESME_RINVCMDID
        }
    }
}

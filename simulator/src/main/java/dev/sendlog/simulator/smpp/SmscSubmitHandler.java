package dev.sendlog.simulator.smpp;

import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jsmpp.PDUStringException;
import org.jsmpp.SMPPConstant;
import org.jsmpp.bean.BroadcastSm;
import org.jsmpp.bean.CancelBroadcastSm;
import org.jsmpp.bean.CancelSm;
import org.jsmpp.bean.DataSm;
import org.jsmpp.bean.EnquireLink;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.bean.QueryBroadcastSm;
import org.jsmpp.bean.QuerySm;
import org.jsmpp.bean.ReplaceSm;
import org.jsmpp.bean.SubmitMulti;
import org.jsmpp.bean.SubmitSm;
import org.jsmpp.extra.ProcessRequestException;
import org.jsmpp.session.BroadcastSmResult;
import org.jsmpp.session.DataSmResult;
import org.jsmpp.session.QueryBroadcastSmResult;
import org.jsmpp.session.QuerySmResult;
import org.jsmpp.session.SMPPServerSession;
import org.jsmpp.session.ServerMessageReceiverListener;
import org.jsmpp.session.ServerResponseDeliveryListener;
import org.jsmpp.session.Session;
import org.jsmpp.session.SubmitMultiResult;
import org.jsmpp.session.SubmitSmResult;
import org.jsmpp.util.MessageId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each submit_sm: throttled, undecodable, queue full, or accepted (recorded, with a receipt planned and
 * perhaps its response lost). jsmpp calls it on a session's PDU threads and writes the answer when it returns, so
 * the simulated latency is a pause here. Receipts are handed to the sender once jsmpp reports the response written
 * (or left out), so that they follow it unless {@link SmscConfig#receiptBeforeResponse()} asks for the race.
 * Other operations (submit_multi, query_sm, data_sm, ...) are answered {@code ESME_RINVCMDID}.
 */
final class SmscSubmitHandler implements ServerMessageReceiverListener, ServerResponseDeliveryListener {
    private static final Logger log = LoggerFactory.getLogger(SmscSubmitHandler.class);
    private static final long RECEIPT_WRITE_WAIT_MS = 1_000;

    private final Supplier<SmscConfig> config;
    private final Supplier<SmscState> state;
    private final Supplier<TokenBucket> bucket;
    private final SmscSessions sessions;
    private final Set<String> responsesToLose;
    private final SmscReceiptSender receiptSender;
    private final Map<String, AwaitingResponse> awaitingResponse = new ConcurrentHashMap<>();
    /** Told of every accepted submit before its answer: the simulator's journal, when it keeps one. */
    private final Supplier<java.util.function.Consumer<SmscSubmit>> journal;

    private record AwaitingResponse(PendingReceipt receipt, long delayMs) {}

    SmscSubmitHandler(
            Supplier<SmscConfig> config,
            Supplier<SmscState> state,
            Supplier<TokenBucket> bucket,
            SmscSessions sessions,
            Set<String> responsesToLose,
            SmscReceiptSender receiptSender,
            Supplier<java.util.function.Consumer<SmscSubmit>> journal) {
        this.config = config;
        this.state = state;
        this.bucket = bucket;
        this.sessions = sessions;
        this.responsesToLose = responsesToLose;
        this.receiptSender = receiptSender;
        this.journal = journal;
    }

    @Override
    public SubmitSmResult onAcceptSubmitSm(SubmitSm submitSm, SMPPServerSession source) throws ProcessRequestException {
        SmscConfig current = config.get();
        SmscState counters = state.get();
        counters.received.increment();
        try {
            return decide(submitSm, source, current, counters);
        } finally {
            pause(current.latencyMs());
        }
    }

    private SubmitSmResult decide(SubmitSm submitSm, SMPPServerSession source, SmscConfig current, SmscState counters)
            throws ProcessRequestException {
        if (!bucket.get().tryTake()) {
            counters.throttled.increment();
            throw new ProcessRequestException("above maxPerSecond", SMPPConstant.STAT_ESME_RTHROTTLED);
        }
        DecodedBody body;
        try {
            body = SubmitBodyDecoder.decode(
                    submitSm.getDataCoding(), submitSm.getEsmClass(), submitSm.getShortMessage(), payload(submitSm));
        } catch (InvalidBodyException e) {
            counters.invalid.increment();
            log.info("submit_sm refused with 0x{}: {}", Integer.toHexString(e.commandStatus()), e.getMessage());
            throw new ProcessRequestException(e.getMessage(), e.commandStatus());
        }
        if (current.queueFullEvery() > 0 && counters.nextQueued() % current.queueFullEvery() == 0) {
            counters.queueFull.increment();
            throw new ProcessRequestException("queueFullEvery", SMPPConstant.STAT_ESME_RMSGQFUL);
        }
        long number = counters.nextId();
        String messageId = current.idFormat().format(number);
        MessageId wireId;
        try {
            wireId = new MessageId(messageId);
        } catch (PDUStringException e) {
            throw new ProcessRequestException("message id " + messageId, SMPPConstant.STAT_ESME_RSYSERR);
        }
        String systemId = sessions.systemIdOf(source);
        SmscSubmit submit = new SmscSubmit(
                messageId,
                systemId == null ? "" : systemId,
                submitSm.getSourceAddr(),
                submitSm.getSourceAddrTon(),
                submitSm.getSourceAddrNpi(),
                submitSm.getDestAddress(),
                submitSm.getDataCoding(),
                submitSm.getEsmClass(),
                submitSm.getRegisteredDelivery(),
                submitSm.getValidityPeriod(),
                body.text(),
                body.concatRef(),
                body.partNumber(),
                body.partCount(),
                body.viaPayload(),
                Instant.now());
        counters.record(submit);
        journal.get().accept(submit);
        counters.accepted.increment();
        double loseRate = current.loseResponseRate();
        if (loseRate > 0 && ThreadLocalRandom.current().nextDouble() < loseRate) {
            responsesToLose.add(messageId);
            counters.responsesLost.increment();
        }
        PendingReceipt receipt = receiptFor(current, counters, submit, number, submitSm);
        if (receipt != null) {
            counters.receiptsPending.increment();
            if (current.receiptBeforeResponse()) {
                try {
                    receiptSender.sendBeforeResponse(receipt, RECEIPT_WRITE_WAIT_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                awaitingResponse.put(messageId, new AwaitingResponse(receipt, current.receiptDelayMs()));
            }
        }
        return new SubmitSmResult(wireId, new OptionalParameter[0]);
    }

    private static PendingReceipt receiptFor(
            SmscConfig current, SmscState counters, SmscSubmit submit, long number, SubmitSm submitSm) {
        if (current.receipts() == SmscReceipts.NONE) {
            return null;
        }
        if (current.receiptPartsOnly() > 0
                && submit.partCount() > 1
                && submit.partNumber() > current.receiptPartsOnly()) {
            return null;
        }
        String stat = current.receipts() == SmscReceipts.FINAL ? current.finalStatus() : "ENROUTE";
        String receiptId = current.receiptIdDecimal() && current.idFormat() == SmscIdFormat.HEX
                ? Long.toString(number)
                : submit.messageId();
        return new PendingReceipt(
                counters, submit, submitSm.getDestAddrTon(), submitSm.getDestAddrNpi(), receiptId, stat);
    }

    private static byte[] payload(SubmitSm submitSm) {
        OptionalParameter parameter = submitSm.getOptionalParameter(OptionalParameter.Tag.MESSAGE_PAYLOAD);
        if (parameter instanceof OptionalParameter.OctetString octets) {
            return octets.getValue();
        }
        return null;
    }

    private static void pause(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onSubmitSmRespSent(SubmitSmResult result, SMPPServerSession source) {
        scheduleReceipt(result);
    }

    @Override
    public void onSubmitSmRespError(SubmitSmResult result, Exception cause, SMPPServerSession source) {
        // The message was accepted all the same; its receipt goes out when the client is back.
        scheduleReceipt(result);
    }

    private void scheduleReceipt(SubmitSmResult result) {
        AwaitingResponse awaiting = awaitingResponse.remove(result.getMessageId());
        if (awaiting != null) {
            receiptSender.schedule(awaiting.receipt(), awaiting.delayMs());
        }
    }

    @Override
    public void onAcceptEnquireLink(EnquireLink enquireLink, Session source) {
        state.get().enquireLinks.increment();
    }

    @Override
    public void onSubmitMultiRespSent(SubmitMultiResult result, SMPPServerSession source) {}

    @Override
    public void onSubmitMultiRespError(SubmitMultiResult result, Exception cause, SMPPServerSession source) {}

    @Override
    public SubmitMultiResult onAcceptSubmitMulti(SubmitMulti submitMulti, SMPPServerSession source)
            throws ProcessRequestException {
        throw unsupported("submit_multi");
    }

    @Override
    public QuerySmResult onAcceptQuerySm(QuerySm querySm, SMPPServerSession source) throws ProcessRequestException {
        throw unsupported("query_sm");
    }

    @Override
    public void onAcceptReplaceSm(ReplaceSm replaceSm, SMPPServerSession source) throws ProcessRequestException {
        throw unsupported("replace_sm");
    }

    @Override
    public void onAcceptCancelSm(CancelSm cancelSm, SMPPServerSession source) throws ProcessRequestException {
        throw unsupported("cancel_sm");
    }

    @Override
    public BroadcastSmResult onAcceptBroadcastSm(BroadcastSm broadcastSm, SMPPServerSession source)
            throws ProcessRequestException {
        throw unsupported("broadcast_sm");
    }

    @Override
    public void onAcceptCancelBroadcastSm(CancelBroadcastSm cancelBroadcastSm, SMPPServerSession source)
            throws ProcessRequestException {
        throw unsupported("cancel_broadcast_sm");
    }

    @Override
    public QueryBroadcastSmResult onAcceptQueryBroadcastSm(QueryBroadcastSm queryBroadcastSm, SMPPServerSession source)
            throws ProcessRequestException {
        throw unsupported("query_broadcast_sm");
    }

    @Override
    public DataSmResult onAcceptDataSm(DataSm dataSm, Session source) throws ProcessRequestException {
        throw unsupported("data_sm");
    }

    private static ProcessRequestException unsupported(String operation) {
        return new ProcessRequestException(operation + " is not simulated", SMPPConstant.STAT_ESME_RINVCMDID);
    }
}

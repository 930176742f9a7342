package dev.sendlog.simulator.smpp;

import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jsmpp.InvalidResponseException;
import org.jsmpp.PDUException;
import org.jsmpp.bean.DataCodings;
import org.jsmpp.bean.ESMClass;
import org.jsmpp.bean.NumberingPlanIndicator;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.bean.RegisteredDelivery;
import org.jsmpp.bean.TypeOfNumber;
import org.jsmpp.extra.NegativeResponseException;
import org.jsmpp.extra.ResponseTimeoutException;
import org.jsmpp.session.SMPPServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends delivery receipts as deliver_sm and keeps each until a client acknowledges it with ESME_ROK: a refusal, no
 * answer within {@link #RESPONSE_TIMEOUT_MS}, or no session to send it on means another attempt after a backoff
 * (100 ms, doubling, at most 2 s), until the simulator closes. That is what a real SMSC does, and what a client
 * relies on when it answers a receipt only once it has stored it.
 *
 * <p>A fixed pool of threads: jsmpp's deliverShortMessage blocks its caller until the response (or the timeout), so
 * a client that stops answering holds at most this many threads, and the rest of the receipts wait in the queue.
 */
final class SmscReceiptSender implements AutoCloseable {
    static final long RESPONSE_TIMEOUT_MS = 2_000;
    static final long FIRST_RETRY_MS = 100;
    static final long MAX_RETRY_MS = 2_000;
    private static final int THREADS = 8;
    private static final byte ESM_DELIVERY_RECEIPT = 0x04;
    private static final Logger log = LoggerFactory.getLogger(SmscReceiptSender.class);

    private final SmscSessions sessions;
    private final ScheduledThreadPoolExecutor executor;
    private volatile boolean closed;

    SmscReceiptSender(SmscSessions sessions) {
        this.sessions = sessions;
        AtomicInteger threadNumber = new AtomicInteger();
        executor = new ScheduledThreadPoolExecutor(THREADS, task -> {
            Thread thread = new Thread(task, "smsc-receipt-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The first attempt after {@code delayMs}. */
    void schedule(PendingReceipt receipt, long delayMs) {
        submit(receipt, null, delayMs);
    }

    /**
     * The first attempt now; returns once its deliver_sm is written, or could not be, or after {@code waitMs}.
     * The caller then lets the submit_sm_resp go, which so follows the receipt on the wire.
     */
    void sendBeforeResponse(PendingReceipt receipt, long waitMs) throws InterruptedException {
        CountDownLatch written = new CountDownLatch(1);
        submit(receipt, written, 0);
        written.await(waitMs, TimeUnit.MILLISECONDS);
    }

    static long retryDelayMs(int failedAttempts) {
        int doublings = Math.min(failedAttempts - 1, 20);
        return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS << doublings);
    }

    private void submit(PendingReceipt receipt, CountDownLatch written, long delayMs) {
        if (closed) {
            return;
        }
        try {
            executor.schedule(() -> attempt(receipt, written), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Closed meanwhile: the receipt dies with the simulator, as it would with a real SMSC's restart.
        }
    }

    private void attempt(PendingReceipt receipt, CountDownLatch written) {
        SmscSubmit submit = receipt.submit;
        try {
            if (closed) {
                return;
            }
            SMPPServerSession session = sessions.receiverFor(submit.systemId());
            if (session == null) {
                retry(receipt, "no session of " + submit.systemId() + " bound as receiver or transceiver");
                return;
            }
            SmscPduSender.DELIVER_WRITTEN.set(() -> {
                receipt.state.receiptsSent.increment();
                if (written != null) {
                    written.countDown();
                }
            });
            try {
                session.deliverShortMessage(
                        "",
                        ton(receipt.destTon),
                        npi(receipt.destNpi),
                        submit.destAddr(),
                        ton(submit.sourceTon()),
                        npi(submit.sourceNpi()),
                        submit.sourceAddr(),
                        new ESMClass(ESM_DELIVERY_RECEIPT),
                        (byte) 0,
                        (byte) 0,
                        new RegisteredDelivery(0),
                        DataCodings.ZERO,
                        receipt.shortMessage(Instant.now()),
                        new OptionalParameter.Receipted_message_id(receipt.receiptId),
                        new OptionalParameter.Message_state(receipt.messageState()));
            } finally {
                SmscPduSender.DELIVER_WRITTEN.remove();
            }
            receipt.state.receiptsAcked.increment();
            receipt.state.receiptsPending.decrement();
            log.debug("receipt {} for {} acknowledged", receipt.stat, receipt.receiptId);
        } catch (NegativeResponseException e) {
            receipt.state.receiptsRefused.increment();
            retry(receipt, "deliver_sm_resp with command_status 0x" + Integer.toHexString(e.getCommandStatus()));
        } catch (ResponseTimeoutException e) {
            retry(receipt, "no deliver_sm_resp within " + RESPONSE_TIMEOUT_MS + " ms");
        } catch (InvalidResponseException e) {
            retry(receipt, "invalid response: " + e.getMessage());
        } catch (IOException e) {
            retry(receipt, "session failed: " + e.getMessage());
        } catch (PDUException e) {
            // A field the PDU cannot carry: no retry would change that.
            receipt.state.receiptsPending.decrement();
            log.error("receipt for {} cannot be composed, given up", receipt.receiptId, e);
        } catch (RuntimeException e) {
            retry(receipt, e.toString());
        } finally {
            if (written != null) {
                written.countDown();
            }
        }
    }

    private void retry(PendingReceipt receipt, String why) {
        if (closed) {
            return;
        }
        int failed = receipt.failed();
        long delay = retryDelayMs(failed);
        // The first failure of a receipt is worth a line; its retries against a client that stays away are not.
        if (failed == 1) {
            log.info("receipt for {} not acknowledged ({}), retried in {} ms", receipt.receiptId, why, delay);
        } else {
            log.debug(
                    "receipt for {} not acknowledged ({}), attempt {} in {} ms",
                    receipt.receiptId,
                    why,
                    failed + 1,
                    delay);
        }
        submit(receipt, null, delay);
    }

    private static TypeOfNumber ton(byte value) {
        try {
            return TypeOfNumber.valueOf(value);
        } catch (IllegalArgumentException e) {
            return TypeOfNumber.UNKNOWN;
        }
    }

    private static NumberingPlanIndicator npi(byte value) {
        try {
            return NumberingPlanIndicator.valueOf(value);
        } catch (IllegalArgumentException e) {
            return NumberingPlanIndicator.UNKNOWN;
        }
    }

    /** Stops at once: receipts not yet acknowledged are dropped, attempts waiting for a response are interrupted. */
    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
    }
}

package dev.sendlog.service.send.provider.smpp;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jsmpp.DefaultPDUSender;
import org.jsmpp.SynchronizedPDUSender;
import org.jsmpp.util.DefaultComposer;

/**
 * One bind's PDU writer, which answers a receipt's {@code deliver_sm} only once the receipt is stored: {@code ESME_ROK}
 * when the store committed, {@code ESME_RX_T_APPN} when it failed (the SMSC sends it again), nothing when the
 * connection is gone by then (the SMSC sends it again too).
 *
 * <p>Why not simply store inside the listener: jsmpp's client reads every PDU of a session on one thread, and answers a
 * {@code deliver_sm} when its listener returns. A listener that waits for the commit holds up every PDU behind it,
 * {@code submit_sm_resp} included, so a burst of receipts (or a slow commit) would make submits time out and their
 * messages UNKNOWN, and receipts would be stored one commit at a time. Here the listener starts the store and returns;
 * jsmpp then asks this writer for the answer, which is written when the store is done. SMPP lets answers come in any
 * order. The SMSC's own window bounds the receipts outstanding at once.
 */
final class ReceiptAnswers extends SynchronizedPDUSender {
    static final int STATUS_TEMPORARY_APP_ERROR = 0x64;

    private final ConcurrentMap<Integer, CompletableFuture<Boolean>> stores = new ConcurrentHashMap<>();

    ReceiptAnswers() {
        super(new DefaultPDUSender(new DefaultComposer()));
    }

    /** The receipt of {@code deliver_sm} {@code sequenceNumber} is being stored: its answer waits for {@code stored}. */
    void storing(int sequenceNumber, CompletableFuture<Boolean> stored) {
        stores.put(sequenceNumber, stored);
    }

    /** Receipts whose answer is still waiting for their store. */
    int waiting() {
        return stores.size();
    }

    @Override
    public byte[] sendDeliverSmResp(OutputStream os, int commandStatus, int sequenceNumber, String messageId)
            throws IOException {
        CompletableFuture<Boolean> stored = stores.remove(sequenceNumber);
        if (stored == null || commandStatus != 0) {
            return super.sendDeliverSmResp(os, commandStatus, sequenceNumber, messageId);
        }
        stored.whenComplete((ok, error) -> {
            int status = error == null && Boolean.TRUE.equals(ok) ? 0 : STATUS_TEMPORARY_APP_ERROR;
            try {
                super.sendDeliverSmResp(os, status, sequenceNumber, messageId);
            } catch (IOException e) {
                // The bind is gone: unanswered, the receipt comes again, and the inbox keeps it once.
            }
        });
        return new byte[0];
    }
}

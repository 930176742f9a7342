package dev.sendlog.service.send.provider;

/** A provider gateway. Called with no database transaction open (invariant 8). */
public interface Provider {
    SubmitOutcome submit(Submit submit);

    /** Whether this gateway answers {@link #status} (the gateway's {@code statusQuery: true}). */
    default boolean answersStatusQueries() {
        return false;
    }

    /**
     * The provider's view of a submit's idempotency key (API.md, "Status query"). Only for a gateway that
     * {@link #answersStatusQueries()}. SMPP's {@code query_sm} is not built: SMPP gateways do not exist yet, and their
     * issue owns it.
     */
    default StatusAnswer status(String idempotencyKey) {
        throw new UnsupportedOperationException("this gateway does not answer status queries");
    }
}

package dev.sendlog.service.provider;

/** A provider gateway. Called with no database transaction open (invariant 8). */
public interface Provider {
    SubmitOutcome submit(Submit submit);
}

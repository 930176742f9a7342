package dev.sendlog.service.faults;

/**
 * The four moments of the field report where a message can be lost or sent twice. Tests arm a
 * {@link Faults} at one of them to prove that a crash there changes only latency.
 */
public enum FaultPoint {
    /** The accept transaction committed; the API has not answered yet. */
    AFTER_ACCEPT_COMMIT,
    /** A worker appended CLAIMED; it has not called the provider yet. */
    AFTER_CLAIM,
    /** The poller put jobs on the stream; it has not appended PUBLISHED nor moved its cursor yet. */
    BETWEEN_PUBLISH_AND_APPEND,
    /** The provider answered with an id; the worker has not recorded it yet. */
    BETWEEN_PROVIDER_ANSWER_AND_WRITE
}

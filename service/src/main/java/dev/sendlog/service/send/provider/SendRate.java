package dev.sendlog.service.send.provider;

import java.time.Duration;

/** A gateway's rate as the send workers take it: its shared bucket ({@link GatewayRate}), or a lane's fair share of it. */
public interface SendRate {
    String gateway();

    /**
     * Takes {@code parts} tokens, waiting for them up to {@code maxWait}. False when they would come later than that:
     * then nothing was taken, and the caller does not call the provider.
     */
    boolean acquire(int parts, Duration maxWait) throws InterruptedException;

    /** Takes {@code parts} tokens if they are there now, without waiting; false: nothing taken. */
    boolean tryAcquire(int parts);

    /** The provider said 429 (or a throttle status): every process slows down for a while. */
    void throttled(Duration retryAfter);
}

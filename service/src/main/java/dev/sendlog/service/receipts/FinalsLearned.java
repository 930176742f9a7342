package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;

/**
 * How a gateway's final statuses were learned: told by a callback, or asked by the reconciler's status query (issue
 * 32). The callback worker and the reconciler each count their own; the reconciler's gauge
 * {@code reconcile.finals.by.query.share.<gateway>} is the share asked, where a provider whose callbacks keep failing
 * shows up.
 */
public final class FinalsLearned {
    private FinalsLearned() {}

    /** The counter {@code receipts.finals.by.<how>.<gateway>}; {@code how} is {@code callback} or {@code query}. */
    public static Counter counter(MetricRegistry metrics, String gateway, String how) {
        return metrics.counter("receipts.finals.by." + how + "." + gateway);
    }
}

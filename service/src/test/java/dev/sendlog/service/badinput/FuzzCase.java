package dev.sendlog.service.badinput;

import java.util.Set;

/**
 * A generated request and what is known in advance about its answer: the statuses that alone are right (empty when
 * any answer that keeps the problem property is), and the tenant of the key it uses (null for none).
 */
record FuzzCase(Kind kind, RawRequest request, Set<Integer> allowed, String tenant) {
    enum Kind {
        SUBMIT,
        BATCH,
        READ,
        SEARCH,
        SUPPRESSION,
        WEBHOOK,
        OTHER,
        CALLBACK
    }
}

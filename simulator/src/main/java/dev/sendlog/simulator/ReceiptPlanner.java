package dev.sendlog.simulator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Turns the receipt mode and rates of a configuration into the receipts of one message. */
final class ReceiptPlanner {
    private final SimulatorConfig config;
    private final SimulatorRandom random;

    ReceiptPlanner(SimulatorConfig config, SimulatorRandom random) {
        this.config = config;
        this.random = random;
    }

    /**
     * The receipts in the order they are sent. Timestamps are event times in the order the events happened,
     * starting at {@code firstAt} and {@code receiptSpacingMs} apart, so in OUT_OF_ORDER the final carries
     * the latest timestamp although it is sent first.
     */
    List<Receipt> plan(Instant firstAt) {
        return callbacks(history(firstAt));
    }

    /**
     * What happens to the message at the provider, in event-time order: the intermediates, then the final, except in
     * INTERMEDIATE_ONLY, where the provider itself never learns a final. NONE sends no callback, but the provider still
     * knows what happened: its status query answers from this history (API.md, "Status query").
     */
    List<Receipt> history(Instant firstAt) {
        int intermediates = config.intermediateReceipts();
        return switch (config.receiptMode()) {
            case INTERMEDIATE_ONLY -> intermediates(firstAt, intermediates);
            case OUT_OF_ORDER -> {
                int atLeastOne = Math.max(1, intermediates);
                List<Receipt> receipts = intermediates(firstAt, atLeastOne);
                receipts.add(finalReceipt(eventTime(firstAt, atLeastOne)));
                yield receipts;
            }
            case NONE, FINAL, DUPLICATED -> {
                List<Receipt> receipts = intermediates(firstAt, intermediates);
                receipts.add(finalReceipt(eventTime(firstAt, intermediates)));
                yield receipts;
            }
        };
    }

    /** The callbacks the receipt mode sends for a history, in the order they are sent. */
    List<Receipt> callbacks(List<Receipt> history) {
        return switch (config.receiptMode()) {
            case NONE -> List.of();
            case INTERMEDIATE_ONLY, FINAL -> history;
            case DUPLICATED -> {
                List<Receipt> receipts = new ArrayList<>(history);
                receipts.add(history.getLast());
                yield receipts;
            }
            case OUT_OF_ORDER -> {
                List<Receipt> receipts = new ArrayList<>();
                receipts.add(history.getLast());
                receipts.addAll(history.subList(0, history.size() - 1));
                yield receipts;
            }
        };
    }

    private List<Receipt> intermediates(Instant firstAt, int count) {
        List<Receipt> receipts = new ArrayList<>(count + 2);
        for (int i = 0; i < count; i++) {
            receipts.add(receipt(config.vocabulary().intermediateStatus(i), null, eventTime(firstAt, i)));
        }
        return receipts;
    }

    private Receipt finalReceipt(Instant at) {
        Vocabulary vocabulary = config.vocabulary();
        if (random.roll(config.undeliveredRate())) {
            Vocabulary.NegativeStatus negative = random.pick(vocabulary.negativeStatuses());
            return receipt(negative.status(), negative.errorCode(), at);
        }
        return receipt(vocabulary.deliveredStatus(), null, at);
    }

    private Receipt receipt(String status, String errorCode, Instant at) {
        Vocabulary vocabulary = config.vocabulary();
        boolean unknownStatus = random.roll(config.unknownStatusRate());
        boolean badTimestamp = random.roll(config.badTimestampRate());
        return new Receipt(
                unknownStatus ? vocabulary.unknownStatus() : status,
                badTimestamp ? vocabulary.badTimestamp() : vocabulary.formatTimestamp(at),
                unknownStatus ? null : errorCode);
    }

    private Instant eventTime(Instant firstAt, int index) {
        return firstAt.plusMillis(index * config.receiptSpacingMs());
    }
}

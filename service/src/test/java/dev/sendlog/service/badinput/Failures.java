package dev.sendlog.service.badinput;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cases that broke a property, collected across threads and reported with the seed that replays them: how many
 * broke it for each reason, and the first cases of each reason.
 */
final class Failures {
    private static final int EXAMPLES_PER_REASON = 2;
    private static final int REASONS_SHOWN = 25;
    private final long seed;
    private final Map<String, List<String>> examples = new LinkedHashMap<>();
    private final Map<String, Integer> counts = new LinkedHashMap<>();
    private int total;

    Failures(long seed) {
        this.seed = seed;
    }

    synchronized void add(long caseNumber, String why, Object request, Object response) {
        total++;
        counts.merge(why, 1, Integer::sum);
        List<String> shown = examples.computeIfAbsent(why, k -> new ArrayList<>());
        if (shown.size() < EXAMPLES_PER_REASON && examples.size() <= REASONS_SHOWN) {
            shown.add("case " + caseNumber + ": " + why + "\n request: " + request + "\n response: " + response);
        }
    }

    synchronized int count() {
        return total;
    }

    synchronized String report() {
        StringBuilder s = new StringBuilder()
                .append(total)
                .append(" case(s) broke the property (seed ")
                .append(seed)
                .append("; replay with -D")
                .append(FuzzSeed.PROPERTY)
                .append('=')
                .append(seed)
                .append(")\n");
        counts.forEach(
                (why, n) -> s.append("  ").append(n).append(" x ").append(why).append('\n'));
        examples.values()
                .forEach(list -> list.forEach(e -> s.append('\n').append(e).append('\n')));
        return s.toString();
    }
}

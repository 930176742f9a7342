package dev.sendlog.bench.baseline;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} pairs from a command line, with defaults; an unknown or valueless name fails at once. */
public final class Options {
    private final Map<String, String> values = new HashMap<>();

    private Options() {}

    /** Parses {@code args}; every name must be one of {@code defaults}' keys, whose values are used when absent. */
    public static Options parse(String[] args, Map<String, String> defaults) {
        Options options = new Options();
        options.values.putAll(defaults);
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (!name.startsWith("--") || !defaults.containsKey(name.substring(2))) {
                throw new IllegalArgumentException("unknown option " + name + "; known: " + defaults.keySet());
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            options.values.put(name.substring(2), args[i + 1]);
        }
        return options;
    }

    public String text(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    public int number(String name) {
        return Integer.parseInt(text(name));
    }
}

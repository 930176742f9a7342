package dev.sendlog.service.tasks;

import io.dropwizard.servlets.tasks.Task;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** An admin task acting on one component named by {@code ?component=}, e.g. {@code POST /tasks/pause?component=poller}. */
public final class ComponentTask extends Task {
    private final Supplier<Set<String>> components;
    private final Consumer<String> action;

    /**
     * @param components the components that run in this process (read at each request: they are wired after the task)
     * @param action     what the task does to the one named
     */
    public ComponentTask(String name, Supplier<Set<String>> components, Consumer<String> action) {
        super(name);
        this.components = components;
        this.action = action;
    }

    /** Why these parameters name no component of this process; empty when they name exactly one. */
    public Optional<String> refusal(Map<String, List<String>> parameters) {
        List<String> component = parameters.get("component");
        Set<String> known = new TreeSet<>(components.get());
        if (component == null || component.size() != 1) {
            return Optional.of("give exactly one ?component=, one of " + known);
        }
        if (!known.contains(component.getFirst())) {
            return Optional.of("no component " + component.getFirst() + " runs here; one of " + known);
        }
        return Optional.empty();
    }

    @Override
    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
        // TaskArguments answers a refusal with 400 before the task servlet runs; this is the guard behind it.
        Optional<String> refusal = refusal(parameters);
        if (refusal.isPresent()) {
            throw new IllegalArgumentException(refusal.get());
        }
        action.accept(parameters.get("component").getFirst());
        output.println(getName() + " " + parameters.get("component").getFirst());
    }
}

/** Message and modal components: finding what a user clicks, building what a modal submits. */
import type { Json } from './types.ts';

function children(component: Json): Json[] {
  const nested = [component.components, component.accessory, component.component];
  return nested.flatMap((c) => (Array.isArray(c) ? (c as Json[]) : c ? [c as Json] : []));
}

/** The component with this custom id, searched through rows, sections and containers. */
export function findComponent(components: Json[], customId: string): Json | undefined {
  for (const component of components) {
    if (component.custom_id === customId) return component;
    const inner = findComponent(children(component), customId);
    if (inner) return inner;
  }
  return undefined;
}

/** Every custom id on a message, for error messages. */
export function collectCustomIds(components: Json[]): string[] {
  return components.flatMap((c) => [
    ...(typeof c.custom_id === 'string' ? [c.custom_id] : []),
    ...collectCustomIds(children(c)),
  ]);
}

/** MODAL_SUBMIT `components`, mirroring the modal's action-row or label layout. */
export function modalComponents(modal: Json, values: Record<string, string>): Json[] {
  const inputs = findTextInputs((modal.components ?? []) as Json[]);
  for (const key of Object.keys(values)) {
    if (!inputs.some((i) => i.custom_id === key)) {
      const ids = inputs.map((i) => i.custom_id);
      throw new Error(
        `fake-discord: modal ${String(modal.custom_id)} has no text input "${key}" (has: ${ids})`,
      );
    }
  }
  const submitted = (input: Json): Json => {
    const value = values[String(input.custom_id)] ?? '';
    if (input.required !== false && value === '') {
      throw new Error(`fake-discord: modal text input "${String(input.custom_id)}" is required`);
    }
    if (typeof input.max_length === 'number' && value.length > input.max_length) {
      throw new Error(
        `fake-discord: "${String(input.custom_id)}" is longer than ${input.max_length}`,
      );
    }
    return {
      type: 4,
      ...(input.id === undefined ? {} : { id: input.id }),
      custom_id: input.custom_id,
      value,
    };
  };
  const result: Json[] = [];
  for (const row of (modal.components ?? []) as Json[]) {
    const id = row.id === undefined ? {} : { id: row.id };
    if (row.type === 1 && Array.isArray(row.components)) {
      const fields = (row.components as Json[]).filter((c) => c.type === 4).map(submitted);
      result.push({ type: 1, ...id, components: fields });
    } else if (row.type === 18 && (row.component as Json | undefined)?.type === 4) {
      result.push({ type: 18, ...id, component: submitted(row.component as Json) });
    }
  }
  return result;
}

function findTextInputs(components: Json[]): Json[] {
  return components.flatMap((c) => (c.type === 4 ? [c] : findTextInputs(children(c))));
}

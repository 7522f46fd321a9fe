import type { ReactNode } from "react";

export interface SelectOption<V extends string | number> {
  value: V;
  label: string;
  title?: string;
}

/** A `<select>` over typed options: the value handed back is the option's own, never the DOM's string. */
export function Select<V extends string | number>({
  value,
  options,
  onChange,
  label,
}: {
  value: V;
  options: readonly SelectOption<V>[];
  onChange: (value: V) => void;
  /** An accessible name, when no visible label wraps it. */
  label?: string;
}) {
  return (
    <select
      className="input"
      value={value}
      aria-label={label}
      onChange={(e) => {
        const picked = options.find((o) => String(o.value) === e.target.value);
        if (picked) onChange(picked.value);
      }}
    >
      {options.map((o) => (
        <option key={o.value} value={o.value} title={o.title}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/** A labelled form control: inline (a filter bar: label beside it) or stacked (a form: label above it). */
export function Field({ label, inline, children }: { label: string; inline?: boolean; children: ReactNode }) {
  return inline ? (
    <label className="field-inline">
      <span>{label}</span>
      {children}
    </label>
  ) : (
    <label className="field">
      <span className="field-label">{label}</span>
      {children}
    </label>
  );
}

/** A {@link Select} with its visible label. */
export function SelectField<V extends string | number>({
  label,
  inline,
  ...select
}: {
  label: string;
  inline?: boolean;
  value: V;
  options: readonly SelectOption<V>[];
  onChange: (value: V) => void;
}) {
  return (
    <Field label={label} inline={inline}>
      <Select {...select} />
    </Field>
  );
}

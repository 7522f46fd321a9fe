import type { InputHTMLAttributes } from "react";

type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange" | "className" | "aria-label"> & {
  value: string;
  onValue: (value: string) => void;
  /** The accessible name: the console's inline fields have no visible label. */
  label: string;
  wide?: boolean;
};

/** A one-line text field of the console's forms. */
export function TextInput({ value, onValue, label, wide = false, ...rest }: TextInputProps) {
  return <input className={wide ? "input input-wide" : "input"} value={value} onChange={(e) => onValue(e.target.value)} aria-label={label} {...rest} />;
}

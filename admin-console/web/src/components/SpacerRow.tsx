// The spacer rows of a windowed table body (useVirtualRows): an empty row of `height` px across
// `columns` columns above or below the rendered rows, so the scroll height stays the full list's.
export function SpacerRow({ height, columns }: { height: number; columns: number }) {
  if (height <= 0) return null;
  return (
    <tr className="ops-spacer" aria-hidden>
      <td colSpan={columns} style={{ height }} />
    </tr>
  );
}
